package io.github.checkpointfinalizer.flink.cluster;

import org.apache.flink.streaming.api.functions.sink.legacy.RichSinkFunction;
import org.apache.flink.streaming.api.functions.source.legacy.RichSourceFunction;

/** The source and sink function API where Flink 2.x has it: its legacy packages. */
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
