package io.sluice.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.puppycrawl.tools.checkstyle.JavaParser;
import com.puppycrawl.tools.checkstyle.api.CheckstyleException;
import com.puppycrawl.tools.checkstyle.api.DetailAST;
import com.puppycrawl.tools.checkstyle.api.TokenTypes;

/**
 * The size limits of core's main sources (issue 17): no class over {@value #MAX_CLASS_LINES} lines of code, blank
 * and comment lines not counted (a top-level type with its nested types), and no method over 100 lines, the build's
 * checkstyle {@code MethodLength} rule (config/checkstyle/checkstyle.xml; config/checkstyle/suppressions.xml, which
 * would name a method not split yet, is empty). The JSON lexer and the column encoders, which the limits leave out, live in
 * codecs/, which the rules do not govern. A failure names each offender and its count.
 */
final class SizeLimitsTest
{
    /** Lines of code a class of core may have. */
    static final int MAX_CLASS_LINES = 600;

    private static final int[] TYPES = {TokenTypes.CLASS_DEF, TokenTypes.INTERFACE_DEF, TokenTypes.ENUM_DEF,
        TokenTypes.RECORD_DEF, TokenTypes.ANNOTATION_DEF};

    @Test
    void shouldHaveNoClassOverSixHundredLinesOfCode() throws Exception
    {
        final List<String> offenders = new ArrayList<>();
        int classes = 0;
        String largest = "";
        int largestLines = 0;
        for (final Path file : mainSources())
        {
            for (final String[] c : classSizes(file))
            {
                classes++;
                final int lines = Integer.parseInt(c[1]);
                if (lines > largestLines)
                {
                    largestLines = lines;
                    largest = c[0];
                }
                if (lines > MAX_CLASS_LINES)
                {
                    offenders.add(ProjectCheckstyle.root().relativize(file) + ": class " + c[0] + " has " + c[1]
                        + " lines of code");
                }
            }
        }
        assertTrue(classes >= 90, "found core's classes: " + classes);
        System.out.printf("core: %d classes, the largest %s with %d lines of code%n", classes, largest, largestLines);
        assertTrue(largestLines > 300, "the counter counts: " + largest + " " + largestLines);
        assertEquals(List.of(), offenders, "classes over " + MAX_CLASS_LINES + " lines of code (split them)");
    }

    @Test
    void shouldCountCodeLinesOnlyPerTopLevelClass(@TempDir final Path dir) throws Exception
    {
        final Path f = dir.resolve("Two.java");
        Files.writeString(f, """
            package x;

            /**
             * Javadoc: not code.
             */
            final class One
            {
                // a comment line
                int a; // a trailing comment: the line is code

                /* a block
                   comment */ int b;
                String s = "// not a comment";
                String t = \"""
                    a text block
                    \""";
            }

            class Two
            {
            }
            """);
        final List<String[]> sizes = classSizes(f);
        assertEquals(2, sizes.size());
        assertEquals("One", sizes.get(0)[0]);
        assertEquals("9", sizes.get(0)[1], "class, braces, a, b, s, and the three lines of the text block");
        assertEquals("Two", sizes.get(1)[0]);
        assertEquals("3", sizes.get(1)[1]);
    }

    @Test
    void shouldRefuseAMethodOverOneHundredLinesNamingIt(@TempDir final Path dir) throws Exception
    {
        final Path pkg = dir.resolve("core/src/main/java/io/sluice/core/naming");
        Files.createDirectories(pkg);
        final Path tooLong = pkg.resolve("TooLong.java");
        Files.writeString(tooLong, source("TooLong", "tooLong", 98, 0));
        final Path padded = pkg.resolve("Padded.java");
        Files.writeString(padded, source("Padded", "padded", 97, 40));
        final Path elsewhere = dir.resolve("engine/src/main/java/io/sluice/engine");
        Files.createDirectories(elsewhere);
        final Path notCore = elsewhere.resolve("Long.java");
        Files.writeString(notCore, source("Long", "notGoverned", 150, 0).replace("package io.sluice.core.naming;",
            "package io.sluice.engine;"));

        final List<String> violations = ProjectCheckstyle
            .violations(List.of(tooLong.toFile(), padded.toFile(), notCore.toFile()));
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).contains("TooLong.java")
            && violations.get(0).contains("Method tooLong length is 101 lines (max allowed is 100)"),
            violations.get(0));
    }

    /** A class with one method of {@code statements} statements plus braces, and {@code blank} blank/comment lines. */
    private static String source(final String name, final String method, final int statements, final int blank)
    {
        final StringBuilder sb = new StringBuilder("package io.sluice.core.naming;\n\nfinal class " + name
            + "\n{\n    int " + method + "()\n    {\n        int n = 0;\n");
        for (int i = 1; i < statements; i++)
        {
            sb.append("        n++;\n");
            if (i <= blank)
            {
                sb.append(i % 2 == 0 ? "\n" : "        // a comment\n");
            }
        }
        return sb.append("        return n;\n    }\n}\n").toString();
    }

    /** Per top-level type of a file: {name, lines of code}. */
    static List<String[]> classSizes(final Path file) throws IOException, CheckstyleException
    {
        final String text = Files.readString(file, StandardCharsets.UTF_8);
        final BitSet code = codeLines(text);
        final List<String[]> out = new ArrayList<>();
        final DetailAST unit = JavaParser.parseFile(file.toFile(), JavaParser.Options.WITHOUT_COMMENTS);
        for (DetailAST t = unit.getFirstChild(); t != null; t = t.getNextSibling())
        {
            if (!isType(t))
            {
                continue;
            }
            final DetailAST body = t.findFirstToken(TokenTypes.OBJBLOCK);
            final int first = t.getLineNo();
            final int last = body.getLastChild().getLineNo();
            out.add(new String[]{t.findFirstToken(TokenTypes.IDENT).getText(),
                String.valueOf(code.get(first, last + 1).cardinality())});
        }
        return out;
    }

    private static boolean isType(final DetailAST ast)
    {
        for (final int type : TYPES)
        {
            if (ast.getType() == type)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The 1-based lines that hold something other than white space and comments (string literals and text blocks are
     * code).
     */
    static BitSet codeLines(final String text)
    {
        final BitSet code = new BitSet();
        int line = 1;
        int i = 0;
        final int n = text.length();
        while (i < n)
        {
            final char c = text.charAt(i);
            if (c == '\n')
            {
                line++;
                i++;
            }
            else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/')
            {
                while (i < n && text.charAt(i) != '\n')
                {
                    i++;
                }
            }
            else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*')
            {
                final int end = text.indexOf("*/", i + 2);
                final int stop = end < 0 ? n : end + 2;
                for (int j = i; j < stop; j++)
                {
                    line += text.charAt(j) == '\n' ? 1 : 0;
                }
                i = stop;
            }
            else if (c == '"' || c == '\'')
            {
                final boolean block = text.startsWith("\"\"\"", i);
                final String close = block ? "\"\"\"" : String.valueOf(c);
                int j = i + close.length();
                while (j < n && !text.startsWith(close, j))
                {
                    if (text.charAt(j) == '\\')
                    {
                        j++;
                    }
                    else if (text.charAt(j) == '\n')
                    {
                        code.set(line);
                        line++;
                    }
                    j++;
                }
                code.set(line);
                i = Math.min(n, j + close.length());
            }
            else
            {
                if (!Character.isWhitespace(c))
                {
                    code.set(line);
                }
                i++;
            }
        }
        return code;
    }

    private static List<Path> mainSources() throws IOException
    {
        try (Stream<Path> s = Files.walk(ProjectCheckstyle.root().resolve("core/src/main/java")))
        {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

}
