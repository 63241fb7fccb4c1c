package io.elect.core.security;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A throw-away CA and node certificates for local TLS clusters and tests ({@code scripts/elect-cluster start --tls},
 * {@code scripts/lib/gen-certs.sh}); NEVER for production (docs/security.md says how to make real ones). Runs the
 * JDK's keytool in this JVM (one JVM for every step instead of fifteen keytool processes: on a loaded 2-core machine
 * that is seconds instead of a minute), so it needs {@code --add-exports java.base/sun.security.tools.keytool=ALL-UNNAMED}.
 *
 * <p>Layout of the directory (mode 700, files 600): {@code ca.p12} (CA key), {@code ca.pem}, {@code truststore.p12}
 * (the CA certificate), {@code NAME.p12} per node (an EC P-256 key and a certificate signed by the CA whose
 * subjectAltName lists the node's IP addresses, valid 30 days, plus the CA certificate), {@code password} (the one
 * password of every store, random). An existing CA and existing node stores are kept (idempotent).
 */
public final class ThrowAwayPki
{
    private ThrowAwayPki()
    {
    }

    /** {@code ThrowAwayPki DIR NAME:IP[,IP...] ...} */
    public static void main(String[] args) throws Exception
    {
        if (args.length < 2)
        {
            System.err.println("usage: ThrowAwayPki DIR NAME:IP[,IP...] [NAME:IP ...]");
            System.exit(2);
        }
        List<String> specs = new ArrayList<>(List.of(args).subList(1, args.length));
        generate(Path.of(args[0]), specs);
    }

    /** Creates (or completes) the directory; returns the password file. */
    public static Path generate(Path dir, List<String> nodeSpecs) throws Exception
    {
        Files.createDirectories(dir);
        setMode(dir, "rwx------");
        Path pwFile = dir.resolve("password");
        if (!Files.exists(pwFile))
        {
            byte[] r = new byte[18];
            new SecureRandom().nextBytes(r);
            Files.writeString(pwFile, Base64.getUrlEncoder().withoutPadding().encodeToString(r), StandardCharsets.US_ASCII);
            setMode(pwFile, "rw-------");
        }
        String pw = Files.readString(pwFile, StandardCharsets.US_ASCII).trim();
        Path ca = dir.resolve("ca.p12"), caPem = dir.resolve("ca.pem"), trust = dir.resolve("truststore.p12");
        if (!Files.exists(ca))
        {
            keytool(pw, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=ELECT throw-away CA",
                    "-ext", "bc:c", "-validity", "30", "-keystore", ca, "-storetype", "PKCS12");
            keytool(pw, "-exportcert", "-alias", "ca", "-keystore", ca, "-rfc", "-file", caPem);
            Files.deleteIfExists(trust);
        }
        if (!Files.exists(trust))
            keytool(pw, "-importcert", "-noprompt", "-alias", "ca", "-file", caPem, "-keystore", trust, "-storetype", "PKCS12");
        for (String spec : nodeSpecs)
        {
            int colon = spec.indexOf(':');
            if (colon <= 0 || colon == spec.length() - 1)
                throw new IllegalArgumentException("node spec must be NAME:IP[,IP...], was '" + spec + "'");
            String name = spec.substring(0, colon);
            Path ks = dir.resolve(name + ".p12");
            if (Files.exists(ks))
                continue;
            StringBuilder san = new StringBuilder("san=");
            for (String ip : spec.substring(colon + 1).split(","))
                san.append(san.length() > 4 ? "," : "").append("ip:").append(ip.trim());
            Path csr = dir.resolve(name + ".csr"), crt = dir.resolve(name + ".crt"), tmp = dir.resolve(name + ".p12.tmp");
            Files.deleteIfExists(tmp);
            keytool(pw, "-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                    "-validity", "30", "-keystore", tmp, "-storetype", "PKCS12");
            keytool(pw, "-certreq", "-alias", "node", "-keystore", tmp, "-file", csr);
            keytool(pw, "-gencert", "-alias", "ca", "-keystore", ca, "-infile", csr, "-outfile", crt, "-rfc", "-validity", "30",
                    "-ext", san.toString(), "-ext", "ku:c=digitalSignature,keyEncipherment", "-ext", "eku=serverAuth,clientAuth");
            keytool(pw, "-importcert", "-noprompt", "-alias", "ca", "-file", caPem, "-keystore", tmp);
            keytool(pw, "-importcert", "-alias", "node", "-file", crt, "-keystore", tmp);
            Files.delete(csr);
            Files.move(tmp, ks);
        }
        try (var files = Files.list(dir))
        {
            for (Path p : (Iterable<Path>) files::iterator)
                if (Files.isRegularFile(p))
                    setMode(p, "rw-------");
        }
        return pwFile;
    }

    private static void keytool(String password, Object... args) throws Exception
    {
        List<String> a = new ArrayList<>();
        for (Object o : args)
            a.add(o.toString());
        a.add("-storepass");
        a.add(password);
        Method main;
        try
        {
            main = Class.forName("sun.security.tools.keytool.Main").getMethod("main", String[].class);
        }
        catch (ReflectiveOperationException | IllegalAccessError e)
        {
            throw new IllegalStateException("keytool is not accessible: run with --add-exports java.base/sun.security.tools.keytool=ALL-UNNAMED", e);
        }
        java.io.PrintStream err = System.err;
        try
        {
            // keytool narrates every step on stderr ("Generating 256 bit EC ..."); nothing secret, but noise
            System.setErr(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
            main.invoke(null, (Object) a.toArray(new String[0]));
        }
        catch (IllegalAccessException e)
        {
            throw new IllegalStateException("keytool is not accessible: run with --add-exports java.base/sun.security.tools.keytool=ALL-UNNAMED", e);
        }
        catch (InvocationTargetException e)
        {
            throw new IOException("keytool " + a.get(0) + " failed: " + e.getCause(), e.getCause());
        }
        finally
        {
            System.setErr(err);
        }
    }

    private static void setMode(Path p, String mode)
    {
        try
        {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
        }
        catch (IOException | UnsupportedOperationException e)
        {
            // not a POSIX file system: the directory's own protection applies
        }
    }
}
