package io.elect.core.bridge;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.elect.core.config.ElectConfig;
import io.elect.core.security.TestPki;
import io.elect.core.security.TlsSettings;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.EncryptionOptions.ServerEncryptionOptions;
import org.apache.cassandra.config.EncryptionOptions.ServerEncryptionOptions.InternodeEncryption;
import org.apache.cassandra.exceptions.ConfigurationException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** elect.transport_encryption against Cassandra's server_encryption_options (issue 19). */
class ElectTransportSecurityTest
{
    static ElectConfig elect(String encryption)
    {
        return ElectConfig.fromMap(encryption == null ? Map.of() : Map.of("transport_encryption", encryption));
    }

    static ServerEncryptionOptions internode(InternodeEncryption e)
    {
        return new ServerEncryptionOptions().withInternodeEncryption(e);
    }

    @Test
    void defaultFollowsInternodeEncryptionAndNoneCannotUndoAll()
    {
        assertFalse(ElectTransportSecurity.tlsWanted(elect(null), internode(InternodeEncryption.none)));
        assertTrue(ElectTransportSecurity.tlsWanted(elect(null), internode(InternodeEncryption.all)));
        assertTrue(ElectTransportSecurity.tlsWanted(elect(null), internode(InternodeEncryption.dc)));
        assertTrue(ElectTransportSecurity.tlsWanted(elect("tls"), internode(InternodeEncryption.none)));
        assertFalse(ElectTransportSecurity.tlsWanted(elect("none"), internode(InternodeEncryption.rack)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> ElectTransportSecurity.tlsWanted(elect("none"), internode(InternodeEncryption.all)));
        assertEquals("elect.transport_encryption: none is not allowed while server_encryption_options.internode_encryption is all; "
                     + "allowed: tls (or leave the key out)", e.getMessage());
    }

    @Test
    void keystoresComeFromServerEncryptionOptionsAndAreCheckedAtStart() throws Exception
    {
        TestPki.ensure();
        String pw = TestPki.password(TestPki.DIR);
        ServerEncryptionOptions o = internode(InternodeEncryption.all).withKeyStore(TestPki.DIR.resolve("n1.p12").toString())
                                                                      .withKeyStorePassword(pw).withStoreType("PKCS12")
                                                                      .withTrustStore(TestPki.DIR.resolve("truststore.p12").toString())
                                                                      .withTrustStorePassword(pw);
        TlsSettings s = ElectTransportSecurity.settings(o);
        assertEquals(TestPki.DIR.resolve("n1.p12"), s.keystore());
        assertFalse(s.toString().contains(pw), s.toString());
        Config c = new Config();
        c.server_encryption_options = o;
        ElectTransportSecurity.validate(c, elect(null)); // loads both stores: no exception
        c.server_encryption_options = o.withKeyStorePassword("not-" + pw);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ElectTransportSecurity.validate(c, elect(null)));
        assertTrue(e.getMessage().contains("server_encryption_options.keystore_password: wrong password"), e.getMessage());
        assertFalse(e.getMessage().contains(pw), e.getMessage());
        c.server_encryption_options = internode(InternodeEncryption.none);
        ElectTransportSecurity.validate(c, elect(null)); // no TLS wanted: keystores not needed
    }
}
