package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UserRegexTest
{
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "(a)\\1           | backreferences are not supported",
        "a(?=b)           | lookahead is not supported",
        "a(?!b)           | lookahead is not supported",
        "(?<=a)b          | lookbehind is not supported",
        "(?<!a)b          | lookbehind is not supported",
        "(?>a+)b          | atomic groups are not supported",
        "a++              | possessive quantifiers are not supported",
        "a*+b             | possessive quantifiers are not supported",
        "a{2}+            | possessive quantifiers are not supported",
        "\\p{Alpha}       | [[:alpha:]]",
        "(?x) a b         | unsupported Perl syntax: `(?x`",
        "\\Gx             | invalid escape sequence: `\\G`",
        "a{1001}          | invalid repeat count",
        "(                | missing closing )",
        "[a-z&&[^e]]      | a class intersection (&&) at index 4",
        "x\\v             | \\v at index 1",
        "a{,3}            | {, at index 1",
        "x\\0101         | \\01 at index 1 is an octal escape",
        "\\101           | \\10 at index 0 is an octal escape",
    })
    void shouldRefuseWhatRe2jCannotRunOrWouldReadDifferently(final String regex, final String expected)
    {
        final String problem = UserRegex.problem(regex);
        assertNotNull(problem, regex);
        assertTrue(problem.contains(expected), problem);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> UserRegex.compile(regex));
        assertEquals(problem, e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"crawl\\.[0-9]+\\.fetched", "events\\..*", "(?i)push(event)?", "\\p{L}-[0-9]",
        "[[:alpha:]]+", "(?<name>a|b)c", "\\Q&&\\v{,\\E", "[\\w.-]+", "[]a]", "a{0,3}", "\\{,", "[&]", "(.*a){8}b",
        "(a+)+$", "^(a|aa)+$", "(a|a)*b", "(\\w+\\s?)+$", "([a-z]+)*@", "\\x41", "\\0", "\\012"})
    void shouldAcceptWhatItRunsAsJavaWould(final String regex)
    {
        assertNull(UserRegex.problem(regex), regex);
        assertNotNull(UserRegex.compile(regex));
    }

    @Test
    void shouldMatchWholeTopicNamesWithEscapedDots()
    {
        // case D4: the dots are escaped, the whole name must match
        final var p = UserRegex.compile("crawl\\.[0-9]+\\.fetched");
        for (final String yes : List.of("crawl.1.fetched", "crawl.2.fetched", "crawl.3.fetched", "crawl.42.fetched"))
        {
            assertTrue(p.matcher(yes).matches(), yes);
        }
        for (final String no : List.of("crawl.x.fetched", "crawlX3Xfetched", "crawl.3.fetched.old", "xcrawl.3.fetched"))
        {
            assertFalse(p.matcher(no).matches(), no);
        }
    }

    @Test
    void shouldDecideAHostileExpressionOnTenKilobytesInOnePass()
    {
        // java.util.regex backtracks exponentially here (issue 12: 200 characters held a core at 100 %); RE2/J is
        // linear. The time is shown by bench/ RegexBenchmark; this asserts the answers.
        final var p = UserRegex.compile("(.*a){8}b");
        assertFalse(p.matcher("a".repeat(10_240)).matches());
        assertFalse(p.matcher("a".repeat(10_239) + "c").matches());
        assertTrue(p.matcher("a".repeat(10_239) + "b").matches());
    }

    @ParameterizedTest
    @ValueSource(strings = {"(a+)+$", "^(a|aa)+$", "(a|a)*b", "(\\w+\\s?)+!", "([a-z]+)*@x", "(.*,){12}z"})
    void shouldDecideOtherExpressionsOfTheSameKindOnTenKilobytes(final String regex)
    {
        // the classic catastrophic-backtracking shapes (nested or overlapping repetition) against inputs that almost
        // match: each is one pass; the answers are java.util.regex's where it can finish (short inputs)
        final var p = UserRegex.compile(regex);
        final String almost = (regex.contains(",") ? "a," : "a").repeat(5_120) + "?";
        assertFalse(p.matcher(almost).matches(), regex);
        for (final String shortInput : List.of("aaaa", "aaaa!", "ab", "aa@x", "a,a,", "a".repeat(12) + "b"))
        {
            assertEquals(java.util.regex.Pattern.compile(regex).matcher(shortInput).matches(),
                p.matcher(shortInput).matches(), regex + " on " + shortInput);
        }
    }
}
