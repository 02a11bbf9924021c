package io.github.checkpointfinalizer.flink.cluster;

import org.apache.flink.streaming.api.functions.sink.RichSinkFunction;
import org.apache.flink.streaming.api.functions.source.RichSourceFunction;

/** The source and sink function API where Flink 1.20 has it (Flink 2.x moved it: src/flink2). */
final class LegacyFunctions {
    private LegacyFunctions() {}

    /** A source function. */
    abstract static class Source<T> extends RichSourceFunction<T> {
        private static final long serialVersionUID = 1L;
    }

    /** A sink function. */
    abstract static class Sink<T> extends RichSinkFunction<T> {
        private static final long serialVersionUID = 1L;
    }
}
