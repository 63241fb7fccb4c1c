package io.elect.coding;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Golden cases of the backend choice ({@link ErasureCoders#choose(String, NativeBackends, String)}): the
 * configured {@code elect.coder} value, which native libraries are available (injected, whatever this machine
 * has), and the {@code -Delect.coder} override, against the backend chosen or the setting named by the error.
 * The README's rule: auto = ISA-L, else Jerasure, else pure Java; an explicit isal/jerasure that is unavailable
 * is an error; java always works.
 */
class CoderChoiceTest
{
    private static final String NO_ISAL = "libelect_isal.so not built (test)";
    private static final String NO_JERASURE = "libelect_jerasure.so built but not loadable (test)";

    private static NativeBackends natives(boolean isal, boolean jerasure)
    {
        return NativeBackends.of(isal ? null : NO_ISAL, jerasure ? null : NO_JERASURE);
    }

    private static String orNull(String s)
    {
        return s == null || s.equals("-") ? null : s;
    }

    @ParameterizedTest(name = "coder={0} isal={1} jerasure={2} -Delect.coder={3} -> {4}")
    @CsvSource(delimiter = '|', textBlock = """
        # configured    | isal  | jerasure | override | chosen backend, or error:<setting named>
          auto          | true  | true     | -        | isal
          auto          | true  | false    | -        | isal
          auto          | false | true     | -        | jerasure
          auto          | false | false    | -        | java
          -             | false | true     | -        | jerasure
          ' AUTO '      | false | false    | -        | java
          isal          | true  | true     | -        | isal
          isal          | true  | false    | -        | isal
          isal          | false | true     | -        | error:elect.coder
          isal          | false | false    | -        | error:elect.coder
          ISAL          | false | true     | -        | error:elect.coder
          jerasure      | true  | true     | -        | jerasure
          jerasure      | false | true     | -        | jerasure
          jerasure      | true  | false    | -        | error:elect.coder
          jerasure      | false | false    | -        | error:elect.coder
          java          | true  | true     | -        | java
          java          | false | false    | -        | java
          java-reference| false | false    | -        | java-reference
          auto          | true  | true     | java     | java
          auto          | true  | true     | jerasure | jerasure
          auto          | false | false    | java     | java
          auto          | true  | true     | auto     | isal
          auto          | false | true     | ''       | jerasure
          auto          | false | true     | isal     | error:-Delect.coder (system property)
          isal          | true  | true     | java     | isal
          java          | true  | true     | isal     | java
          jerasure      | false | false    | java     | error:elect.coder
        """)
    void choice(String configured, boolean isal, boolean jerasure, String override, String expected)
    {
        NativeBackends natives = natives(isal, jerasure);
        if (expected.startsWith("error:"))
        {
            CoderUnavailableException e = assertThrows(CoderUnavailableException.class,
                                                       () -> ErasureCoders.choose(orNull(configured), natives, orNull(override)));
            String setting = expected.substring("error:".length());
            assertEquals(setting, e.setting());
            assertEquals(natives.problem(e.backend()), e.reason());
            assertTrue(e.getMessage().startsWith(setting + ": " + e.backend() + " is not available"), e.getMessage());
            assertTrue(e.getMessage().contains(e.reason()), e.getMessage());
        }
        else
        {
            CoderChoice c = ErasureCoders.choose(orNull(configured), natives, orNull(override));
            assertEquals(expected, c.backend());
            assertEquals(orNull(configured) == null ? "auto" : configured.trim().toLowerCase(), c.configured());
            assertEquals(natives, c.natives());
        }
    }

    /** The reason says why each better backend was passed over, so that status can show it. */
    @Test
    void autoReasonNamesWhyEachBetterBackendWasSkipped()
    {
        assertEquals("auto: ISA-L loaded", ErasureCoders.choose("auto", natives(true, false), null).reason());
        String toJerasure = ErasureCoders.choose("auto", natives(false, true), null).reason();
        assertTrue(toJerasure.contains(NO_ISAL) && toJerasure.contains("Jerasure loaded"), toJerasure);
        String toJava = ErasureCoders.choose("auto", natives(false, false), null).reason();
        assertTrue(toJava.contains(NO_ISAL) && toJava.contains(NO_JERASURE) && toJava.contains("pure-Java"), toJava);
        String forced = ErasureCoders.choose("auto", natives(true, true), "java").reason();
        assertTrue(forced.contains("-Delect.coder=java"), forced);
        assertTrue(ErasureCoders.choose("jerasure", natives(true, true), null).reason().contains("elect.coder: jerasure"));
    }

    @Test
    void unknownNamesAreRejectedNamingTheirSetting()
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> ErasureCoders.choose("rs", natives(true, true), null));
        assertTrue(e.getMessage().startsWith("elect.coder must be one of"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ErasureCoders.choose("auto", natives(true, true), "fast"));
        assertTrue(e.getMessage().startsWith("-Delect.coder (system property) must be one of"), e.getMessage());
    }

    /** A choice creates coders of its backend (java always works, whatever the machine has). */
    @Test
    void aChoiceCreatesCodersOfItsBackend()
    {
        CoderChoice java = ErasureCoders.choose("auto", natives(false, false), null);
        ErasureCoder c = java.create(4, 2);
        assertEquals("java", c.backend());
        assertEquals("rs-cauchy-gf8-11d:k=4:m=2", c.codecId());
        assertThrows(IllegalArgumentException.class, () -> java.create(0, 2));
    }

    /** The live state agrees with what the loader reports, library by library. */
    @Test
    void loadedStateMatchesTheLoader()
    {
        NativeBackends now = NativeBackends.loaded();
        assertEquals(IsalCoder.library().problem(), now.isalProblem());
        assertEquals(JerasureCoder.library().problem(), now.jerasureProblem());
        assertTrue(now.available("java") && now.available("java-reference"));
        assertThrows(IllegalArgumentException.class, () -> now.problem("auto"));
    }
}
