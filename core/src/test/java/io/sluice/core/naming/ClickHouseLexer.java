package io.sluice.core.naming;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A small model of ClickHouse's SQL lexer ({@code src/Parsers/Lexer.cpp}) and of how it decodes a quoted token
 * ({@code readAnyQuotedStringInto} and {@code parseComplexEscapeSequence} in {@code src/IO/ReadHelpers.cpp}),
 * enough to check that a quoted name is one token and decodes back to the name. It works on UTF-8 bytes, as the
 * server does.
 */
final class ClickHouseLexer
{
    enum Type
    {
        WHITESPACE, COMMENT, BARE_WORD, NUMBER, STRING_LITERAL, QUOTED_IDENTIFIER, DOT, SEMICOLON, PUNCTUATION, ERROR
    }

    /** How a server reads {@code \c} for a character {@code c} with no special meaning. */
    enum EscapeRules
    {
        /** Old servers (18.x): {@code \c} is {@code c}. */
        LEGACY,
        /** Current servers: {@code \c} keeps its backslash unless {@code c} is a quote, backslash or slash. */
        CURRENT
    }

    record Token(Type type, byte[] bytes)
    {
        String text()
        {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        boolean significant()
        {
            return type != Type.WHITESPACE && type != Type.COMMENT;
        }
    }

    private ClickHouseLexer()
    {
    }

    /** All tokens of {@code sql}, whitespace and comments included. */
    static List<Token> tokens(final String sql)
    {
        final byte[] s = sql.getBytes(StandardCharsets.UTF_8);
        final List<Token> tokens = new ArrayList<>();
        int pos = 0;
        while (pos < s.length)
        {
            final int start = pos;
            final int c = s[pos] & 0xFF;
            final Type type;
            if (isWhitespace(c))
            {
                while (pos < s.length && isWhitespace(s[pos] & 0xFF))
                {
                    pos++;
                }
                type = Type.WHITESPACE;
            }
            else if (c == '\'' || c == '"' || c == '`')
            {
                pos = quotedEnd(s, pos, c);
                type = pos < 0 ? Type.ERROR : c == '\'' ? Type.STRING_LITERAL : Type.QUOTED_IDENTIFIER;
                pos = pos < 0 ? s.length : pos;
            }
            else if (c == '-' && pos + 1 < s.length && s[pos + 1] == '-' ||
                c == '/' && pos + 1 < s.length && s[pos + 1] == '/' ||
                c == '#' && pos + 1 < s.length && (s[pos + 1] == ' ' || s[pos + 1] == '!'))
            {
                while (pos < s.length && s[pos] != '\n')
                {
                    pos++;
                }
                type = Type.COMMENT;
            }
            else if (c == '/' && pos + 1 < s.length && s[pos + 1] == '*')
            {
                pos += 2;
                int depth = 1;
                while (depth > 0 && pos + 1 < s.length)
                {
                    if (s[pos] == '/' && s[pos + 1] == '*')
                    {
                        depth++;
                        pos += 2;
                    }
                    else if (s[pos] == '*' && s[pos + 1] == '/')
                    {
                        depth--;
                        pos += 2;
                    }
                    else
                    {
                        pos++;
                    }
                }
                type = depth == 0 ? Type.COMMENT : Type.ERROR;
                pos = depth == 0 ? pos : s.length;
            }
            else if (c >= '0' && c <= '9')
            {
                while (pos < s.length && (isWordChar(s[pos] & 0xFF) || s[pos] == '.'))
                {
                    pos++;
                }
                type = Type.NUMBER;
            }
            else if (isWordChar(c) || c == '$' || c >= 0x80)
            {
                while (pos < s.length && (isWordChar(s[pos] & 0xFF) || s[pos] == '$' || (s[pos] & 0xFF) >= 0x80))
                {
                    pos++;
                }
                type = Type.BARE_WORD;
            }
            else
            {
                pos++;
                type = c == '.' ? Type.DOT : c == ';' ? Type.SEMICOLON : Type.PUNCTUATION;
            }
            final byte[] bytes = new byte[pos - start];
            System.arraycopy(s, start, bytes, 0, bytes.length);
            tokens.add(new Token(type, bytes));
        }
        return tokens;
    }

    /** Tokens other than whitespace and comments. */
    static List<Token> significantTokens(final String sql)
    {
        final List<Token> significant = new ArrayList<>();
        for (final Token token : tokens(sql))
        {
            if (token.significant())
            {
                significant.add(token);
            }
        }
        return significant;
    }

    /**
     * Decodes a quoted token (quotes included) the way the server reads a quoted identifier or string literal,
     * with SQL-style doubled quotes allowed.
     *
     * @return the decoded bytes.
     * @throws IllegalArgumentException where the server would fail to parse the token.
     */
    static byte[] decode(final byte[] token, final EscapeRules rules)
    {
        final int quote = token[0] & 0xFF;
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pos = 1;
        while (pos < token.length)
        {
            final int c = token[pos] & 0xFF;
            if (c == quote)
            {
                if (pos + 1 < token.length && (token[pos + 1] & 0xFF) == quote)
                {
                    out.write(quote);
                    pos += 2;
                    continue;
                }
                if (pos != token.length - 1)
                {
                    throw new IllegalArgumentException("closing quote before the end of the token");
                }
                return out.toByteArray();
            }
            if (c != '\\')
            {
                out.write(c);
                pos++;
                continue;
            }
            if (pos + 1 >= token.length)
            {
                throw new IllegalArgumentException("Cannot parse escape sequence");
            }
            final int e = token[pos + 1] & 0xFF;
            if (e == 'x')
            {
                if (pos + 3 >= token.length)
                {
                    throw new IllegalArgumentException("short \\x escape");
                }
                out.write(Integer.parseInt(new String(token, pos + 2, 2, StandardCharsets.US_ASCII), 16));
                pos += 4;
            }
            else if (e == 'N')
            {
                pos += 2;
            }
            else
            {
                final int decoded = switch (e)
                {
                    case 'a' -> 0x07;
                    case 'b' -> '\b';
                    case 'e' -> 0x1B;
                    case 'f' -> '\f';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    case 'v' -> 0x0B;
                    case '0' -> 0;
                    default -> e;
                };
                if (rules == EscapeRules.CURRENT && decoded != '\\' && decoded != '\'' && decoded != '"' &&
                    decoded != '`' && decoded != '/' && !(decoded < 0x20 || decoded == 0x7F))
                {
                    out.write('\\');
                }
                out.write(decoded);
                pos += 2;
            }
        }
        throw new IllegalArgumentException("Cannot parse quoted string: expected closing quote");
    }

    /** Index just past the closing quote of the quoted token starting at {@code pos}, or -1 if not closed. */
    private static int quotedEnd(final byte[] s, final int start, final int quote)
    {
        int pos = start + 1;
        while (pos < s.length)
        {
            final int c = s[pos] & 0xFF;
            if (c == quote)
            {
                pos++;
                if (pos < s.length && (s[pos] & 0xFF) == quote)
                {
                    pos++;
                    continue;
                }
                return pos;
            }
            if (c == '\\')
            {
                pos += 2;
                continue;
            }
            pos++;
        }
        return -1;
    }

    private static boolean isWhitespace(final int c)
    {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B;
    }

    private static boolean isWordChar(final int c)
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
}
