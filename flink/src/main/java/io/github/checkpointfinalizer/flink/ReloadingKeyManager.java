package io.github.checkpointfinalizer.flink;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The client certificate read from its PEM files at every TLS handshake when they changed, so that
 * a rotated certificate (short-lived certificates, a Secret replaced) is presented on the next
 * connection without a restart. A pair that cannot be read, or whose key is not the certificate's
 * (a rotation half written), keeps the last good pair; the files are read once at start, so there
 * always is one.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private static final Pattern KEY = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    /** One pair as read, with the stamps of the files it was read from; its alias names it. */
    private record Pair(String alias, X509Certificate[] chain, PrivateKey key, FileStamp certStamp, FileStamp keyStamp) {}

    private final Path certFile;
    private final Path keyFile;
    /** The pair of the handshake under way may be the previous one when a rotation lands between its calls. */
    private volatile Pair current;
    private volatile Pair previous;
    private long generation;

    /**
     * @throws IOException when the pair cannot be read (with the reason)
     */
    ReloadingKeyManager(Path certFile, Path keyFile) throws IOException {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.current = read();
    }

    /** Reads the pair again when either file changed since the current pair was read. */
    private synchronized void reload() {
        Pair p = current;
        try {
            if (FileStamp.of(certFile).same(p.certStamp()) && FileStamp.of(keyFile).same(p.keyStamp())) {
                return;
            }
            Pair next = read();
            previous = p;
            current = next;
        } catch (IOException halfWritten) {
            // the last good pair until the files are whole again
        }
    }

    private Pair read() throws IOException {
        FileStamp certStamp = FileStamp.of(certFile);
        FileStamp keyStamp = FileStamp.of(keyFile);
        X509Certificate[] chain;
        try (InputStream in = Files.newInputStream(certFile)) {
            chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(X509Certificate[]::new);
        } catch (GeneralSecurityException e) {
            throw new IOException(certFile + ": not a PEM certificate: " + e.getMessage(), e);
        }
        if (chain.length == 0) {
            throw new IOException(certFile + " holds no certificate");
        }
        PrivateKey key = privateKey(keyFile);
        if (!matches(chain[0], key)) {
            throw new IOException(keyFile + " is not the key of the certificate in " + certFile);
        }
        return new Pair("client-" + ++generation, chain, key, certStamp, keyStamp);
    }

    /** A PKCS#8 PEM key ("BEGIN PRIVATE KEY"), RSA or EC, as Temporal's own SDK reads it. */
    private static PrivateKey privateKey(Path file) throws IOException {
        Matcher m = KEY.matcher(Files.readString(file, StandardCharsets.US_ASCII));
        if (!m.find()) {
            throw new IOException(file + " holds no PKCS#8 PEM private key (BEGIN PRIVATE KEY)");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1)));
        for (String algorithm : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new IOException(file + ": neither an EC nor an RSA private key");
    }

    /** Whether the key signs what the certificate's public key verifies. */
    private static boolean matches(X509Certificate cert, PrivateKey key) {
        if (!key.getAlgorithm().equals(cert.getPublicKey().getAlgorithm())) {
            return false;
        }
        String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
        try {
            byte[] probe = "checkpoint-finalizer".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] signed = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(cert.getPublicKey());
            v.update(probe);
            return v.verify(signed);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private Pair pair(String alias) {
        Pair p = current;
        if (p.alias().equals(alias)) {
            return p;
        }
        Pair before = previous;
        return before != null && before.alias().equals(alias) ? before : null;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        reload();
        return current.alias();
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        reload();
        return current.alias();
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return new String[] {current.alias()};
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Pair p = pair(alias);
        return p == null ? null : p.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Pair p = pair(alias);
        return p == null ? null : p.key();
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
