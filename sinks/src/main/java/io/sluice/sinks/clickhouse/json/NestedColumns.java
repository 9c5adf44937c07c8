package io.sluice.sinks.clickhouse.json;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import net.openhft.chronicle.bytes.Bytes;

import io.sluice.codecs.json.JsonCursor;
import io.sluice.codecs.json.JsonKind;
import io.sluice.codecs.json.JsonValueView;
import io.sluice.codecs.rowbinary.ClickHouseType;
import io.sluice.codecs.rowbinary.ColumnEncoder;
import io.sluice.codecs.rowbinary.RowBinary;
import io.sluice.core.gather.json.ColumnMappings;
import io.sluice.core.gather.json.JsonRecord;

/**
 * ClickHouse's rules for columns whose names hold a dot, applied to each record before its row joins a batch, so
 * that what the server would refuse for a whole block is found per record (docs/codecs.md, "Nested columns"). A
 * {@code Nested(a T, b U)} column {@code n} is stored as the columns {@code n.a Array(T)} and {@code n.b Array(U)};
 * the server groups Array columns by their name and refuses a block in which the arrays of one group differ in length
 * in any row (ClickHouse's {@code Nested::validateArraySizes}, error 190 SIZES_OF_ARRAYS_DOESNT_MATCH, checked on
 * 18.16). A group here is the Array columns named exactly {@code n.identifier} ({@link #groupable}: 18.16's
 * {@code Nested::splitName}); a name with more dots ({@code x.y.z}) is in no group, as on 18.16 (without a
 * value it is written as {@code []}). Per record:
 * <ol>
 *   <li><b>Where a value is read.</b> A column {@code x.y} reads the key {@code "x.y"}, or the member {@code y} of an
 *       object {@code x}, as ClickHouse's JSONEachRow does with {@code input_format_import_nested_json = 1} (every
 *       way of cutting the name at its dots into nested objects, for names of up to four dots; with more, the key and
 *       the fully nested form). A form whose leading part is itself a column of the table is not read (ClickHouse
 *       reads that key as that column), nor one with an all-digit member (the JSON path would also match an array
 *       index). A value found in two forms ({@code {"n.a":[1],"n":{"a":[2]}}}) fails the record. A mapped column
 *       ({@code columns = {...}}) reads its mapping only.</li>
 *   <li><b>Equal lengths.</b> The Array columns of one group must hold as many elements each; a record whose do not
 *       fails, naming the group, both columns and both lengths.</li>
 *   <li><b>A member without a value</b> (absent or null, and no DEFAULT that applies) is filled with its element
 *       type's default (0, empty string, NULL for Nullable) repeated to the length of its group (of a member written
 *       before it, else of the first later member whose value is an array; 0 when none is): what ClickHouse does for
 *       a Nested member an INSERT leaves out (checked on 18.16: {@code INSERT INTO t (id, n.a) VALUES (1, [1,2])}
 *       stores {@code n.b = ['','']}), never an empty array next to a sibling with elements.</li>
 *   <li><b>The group's object must be one.</b> When the record has the group's key ({@code "n"}) and it is neither an
 *       object nor null (an array of objects, a string), the record fails: its members would otherwise all be
 *       missing and the row a row of empty arrays.</li>
 * </ol>
 *
 * <p>One per bound encoder; the route stage's thread only. Allocates nothing per record unless the record fails.
 */
final class NestedColumns
{
    /** Names with up to this many dots are read in every form; longer ones as key and fully nested only. */
    static final int MAX_DOTS_ALL_FORMS = 4;

    private final JsonRecord.Scope scope;
    private final BoundColumn[] columns;
    /** Per column: the scope indexes of its other forms, or null. */
    private final int[][] forms;
    /** Per column: the JSON paths of its other forms (for messages), or null. */
    private final String[][] formPaths;
    /** Per column: its group, or -1. */
    private final int[] groupOf;
    private final String[] groupNames;
    private final int[][] groupMembers;
    /** Per group: the scope index of the group's own key (its object), or -1 when it is not checked. */
    private final int[] groupKey;
    /** Per column: the bytes of its element type's default, for a member filled to its group's length. */
    private final byte[][] elementDefault;
    /** Per group, for the current record: its length, or -1 before any member was written. */
    private final int[] groupLength;
    /** Per group, for the current record: the column that set its length. */
    private final int[] groupLengthFrom;
    /** Per column, for the current record: the form its value was read from (0: its own path). */
    private final int[] formUsed;
    /** Per column, for the current record: whether it was filled to its group's length. */
    private final boolean[] filled;
    private final JsonValueView probe = new JsonValueView();
    private final JsonValueView element = new JsonValueView();
    private final JsonCursor cursor = new JsonCursor();

    private NestedColumns(final JsonRecord.Scope scope, final BoundColumn[] columns, final int[][] forms,
        final String[][] formPaths, final int[] groupOf, final String[] groupNames, final int[][] groupMembers,
        final int[] groupKey, final byte[][] elementDefault)
    {
        this.scope = scope;
        this.columns = columns;
        this.forms = forms;
        this.formPaths = formPaths;
        this.groupOf = groupOf;
        this.groupNames = groupNames;
        this.groupMembers = groupMembers;
        this.groupKey = groupKey;
        this.elementDefault = elementDefault;
        this.groupLength = new int[groupNames.length];
        this.groupLengthFrom = new int[groupNames.length];
        this.formUsed = new int[columns.length];
        this.filled = new boolean[columns.length];
    }

    /**
     * Reads the dotted columns of a bound table (bind time; allocates).
     *
     * @param tableColumns every column name of the table (insertable or not)
     * @param columns      the bound columns, in row order
     * @param mapped       per bound column: whether it reads a mapping or Kafka metadata (no other form is read)
     * @param scope        the branch's scope, where the other forms' paths are registered
     * @param topLevel     receives the top-level keys the other forms read ({@code unknown_fields = "fail"})
     * @return the rules, or null when no column has a dot (nothing to do per record)
     */
    static NestedColumns bind(final Set<String> tableColumns, final List<BoundColumn> columns,
        final boolean[] mapped, final JsonRecord.Scope scope, final Set<String> topLevel)
    {
        final int n = columns.size();
        final int[][] forms = new int[n][];
        final String[][] formPaths = new String[n][];
        final int[] groupOf = new int[n];
        Arrays.fill(groupOf, -1);
        final Map<String, List<Integer>> groups = new LinkedHashMap<>();
        boolean any = false;
        for (int i = 0; i < n; i++)
        {
            final BoundColumn c = columns.get(i);
            final String name = c.name();
            final int dot = name.indexOf('.');
            if (dot <= 0 || dot == name.length() - 1)
            {
                continue;
            }
            any = true;
            if (c.encoder().type().kind() == ClickHouseType.Kind.ARRAY && groupable(name))
            {
                // a name 18.16 does not split (x.y.z) is in no group: never checked against a sibling, and without a
                // value it is [] (the Array encoder's missing value), as 18.16 stores it
                groups.computeIfAbsent(name.substring(0, dot), k -> new ArrayList<>()).add(i);
            }
            if (!mapped[i])
            {
                final List<String> paths = otherForms(name, tableColumns, topLevel);
                if (!paths.isEmpty())
                {
                    formPaths[i] = paths.toArray(new String[0]);
                    forms[i] = paths.stream().mapToInt(scope::field).toArray();
                }
            }
        }
        if (!any)
        {
            return null;
        }
        final String[] groupNames = groups.keySet().toArray(new String[0]);
        final int[][] members = new int[groupNames.length][];
        final int[] groupKey = new int[groupNames.length];
        final byte[][] elementDefault = new byte[n][];
        for (int g = 0; g < groupNames.length; g++)
        {
            members[g] = groups.get(groupNames[g]).stream().mapToInt(Integer::intValue).toArray();
            boolean readsJson = false;
            for (final int i : members[g])
            {
                groupOf[i] = g;
                elementDefault[i] = elementDefault(columns.get(i).encoder().type());
                readsJson |= !mapped[i];
            }
            groupKey[g] = readsJson && !tableColumns.contains(groupNames[g])
                ? scope.field(ColumnMappings.escapeName(groupNames[g]))
                : -1;
        }
        return new NestedColumns(scope, columns.toArray(new BoundColumn[0]), forms, formPaths, groupOf, groupNames,
            members, groupKey, elementDefault);
    }

    /**
     * Whether a column name is a member of a Nested group: exactly {@code identifier.identifier}, each part
     * {@code [A-Za-z_][A-Za-z0-9_]*}. This is ClickHouse 18.16's {@code Nested::splitName}, which splits no other name
     * (checked on 18.16: a column {@code x.y.z} is neither checked against {@code x.r} nor filled to its length);
     * current releases split at the first dot, so they group more names, and a block they refuse for such a name is
     * found by the batch split (docs/dead-letters.md). The names both agree on are the ones grouped here.
     *
     * @param name a column's name
     * @return whether it takes part in its group's length check and fill
     */
    static boolean groupable(final String name)
    {
        final int dot = name.indexOf('.');
        return dot > 0 && name.indexOf('.', dot + 1) < 0 && identifier(name, 0, dot)
            && identifier(name, dot + 1, name.length());
    }

    private static boolean identifier(final String s, final int from, final int to)
    {
        if (from >= to)
        {
            return false;
        }
        for (int i = from; i < to; i++)
        {
            final char ch = s.charAt(i);
            final boolean letter = ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch == '_';
            if (!letter && (i == from || ch < '0' || ch > '9'))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The JSON paths a dotted column name is also read from: each way of cutting it at its dots into nested objects
     * other than the single key (all of them up to {@value #MAX_DOTS_ALL_FORMS} dots, else only the fully nested
     * one), without those whose leading parts name a column of the table or whose members are all digits.
     *
     * @param name         the column's name
     * @param tableColumns every column name of the table
     * @param topLevel     receives the first key of each form
     * @return the paths, in JsonPath syntax
     */
    static List<String> otherForms(final String name, final Set<String> tableColumns, final Set<String> topLevel)
    {
        final String[] segments = name.split("\\.", -1);
        final List<String> paths = new ArrayList<>();
        for (final String s : segments)
        {
            if (s.isEmpty())
            {
                return paths;
            }
        }
        final int dots = segments.length - 1;
        final int all = (1 << Math.min(dots, 30)) - 1;
        for (int cuts = 1; cuts <= all; cuts++)
        {
            if (dots > MAX_DOTS_ALL_FORMS && cuts != all)
            {
                continue;
            }
            final List<String> parts = new ArrayList<>();
            StringBuilder part = new StringBuilder(segments[0]);
            boolean ok = true;
            for (int d = 0; d < dots && ok; d++)
            {
                if ((cuts & (1 << d)) != 0)
                {
                    // the key so far is an object of the record: not when the table has a column of that name
                    final String leading = String.join(".", parts) + (parts.isEmpty() ? "" : ".") + part;
                    ok = !tableColumns.contains(leading);
                    parts.add(part.toString());
                    part = new StringBuilder(segments[d + 1]);
                }
                else
                {
                    part.append('.').append(segments[d + 1]);
                }
            }
            parts.add(part.toString());
            for (int p = 1; p < parts.size() && ok; p++)
            {
                ok = !parts.get(p).chars().allMatch(ch -> ch >= '0' && ch <= '9');
            }
            if (ok)
            {
                paths.add(String.join(".", parts.stream().map(ColumnMappings::escapeName).toList()));
                topLevel.add(parts.get(0));
            }
        }
        return paths;
    }

    /** The bytes of a type's default, one array element of a filled member. */
    private static byte[] elementDefault(final ClickHouseType arrayType)
    {
        final ColumnEncoder e = ColumnEncoder.forType(arrayType.nested(0));
        final Bytes<Void> b = Bytes.allocateElasticDirect(32);
        try
        {
            e.encodeDefault(b);
            final byte[] bytes = new byte[(int)b.writePosition()];
            b.read(bytes);
            return bytes;
        }
        finally
        {
            b.releaseLast();
        }
    }

    /**
     * Starts a record (after its scan): forgets the lengths of the last one and checks that each group's key, when
     * the record has it, is an object or null.
     *
     * @return null, or why the record cannot be written
     */
    String begin()
    {
        Arrays.fill(groupLength, -1);
        Arrays.fill(filled, false);
        for (int g = 0; g < groupKey.length; g++)
        {
            if (groupKey[g] < 0)
            {
                continue;
            }
            scope.value(groupKey[g], probe);
            final int kind = probe.kind();
            if (kind != JsonKind.MISSING && kind != JsonKind.NULL && kind != JsonKind.OBJECT)
            {
                final BoundColumn first = columns[groupMembers[g][0]];
                return "column " + first.name() + " (" + first.type() + ") from path "
                    + ColumnMappings.escapeName(groupNames[g]) + ": \""
                    + groupNames[g] + "\": " + JsonKind.notAnObject(kind) + ": the columns of Nested "
                    + groupNames[g] + " (" + memberNames(g) + ") are read from keys \"" + groupNames[g]
                    + ".<name>\" or from the members of an object \"" + groupNames[g] + "\"";
            }
        }
        return null;
    }

    /**
     * The value of a column that may be found in another form: after the caller read its own path into {@code view}.
     *
     * @param column the column's index
     * @param view   its value at its own path; replaced by the value of the form that holds one
     * @return null, or why the record cannot be written (the value is given in two forms)
     */
    String resolve(final int column, final JsonValueView view)
    {
        final int[] f = forms[column];
        formUsed[column] = 0;
        if (f == null)
        {
            return null;
        }
        int used = view.kind() == JsonKind.MISSING ? -1 : 0;
        for (int k = 0; k < f.length; k++)
        {
            scope.value(f[k], probe);
            if (probe.kind() == JsonKind.MISSING)
            {
                continue;
            }
            if (used >= 0)
            {
                final BoundColumn c = columns[column];
                return "column " + c.name() + " (" + c.type() + ") from path " + path(column, used)
                    + ": the value is given twice, at " + path(column, used) + " and at " + formPaths[column][k]
                    + " (a key with dots and the members of an object name the same column); ClickHouse reads one";
            }
            used = k + 1;
            view.set(probe);
        }
        formUsed[column] = Math.max(used, 0);
        return null;
    }

    /** @return the path a column's value was read from in the current record, for messages */
    String pathOf(final int column)
    {
        return path(column, formUsed[column]);
    }

    /**
     * @param column a column's index
     * @return whether the current record's value of it was filled to its group's length ({@link #fill})
     */
    boolean filled(final int column)
    {
        return filled[column];
    }

    private String path(final int column, final int form)
    {
        return form == 0 ? columns[column].path() : formPaths[column][form - 1];
    }

    /**
     * @param column a column's index
     * @return whether an absent or null value of it is filled to its group's length
     */
    boolean member(final int column)
    {
        return groupOf[column] >= 0;
    }

    /**
     * Writes a member that has no value: its element type's default, as many times as its group is long.
     *
     * @param column the member's index ({@link #member})
     * @param out    the row
     */
    void fill(final int column, final Bytes<?> out)
    {
        final int g = groupOf[column];
        int n = groupLength[g];
        if (n < 0)
        {
            n = lengthAfter(g, column);
            groupLength[g] = n;
            groupLengthFrom[g] = column;
        }
        filled[column] = true;
        RowBinary.writeVarUInt(out, n);
        final byte[] d = elementDefault[column];
        for (int i = 0; i < n; i++)
        {
            out.write(d);
        }
    }

    /** The element count of the first member after {@code column} whose value is an array; 0 when none is. */
    private int lengthAfter(final int g, final int column)
    {
        for (final int j : groupMembers[g])
        {
            final int field = columns[j].pathIndex();
            if (j <= column || field < 0)
            {
                continue;
            }
            scope.value(field, probe);
            final int[] f = forms[j];
            for (int k = 0; probe.kind() == JsonKind.MISSING && f != null && k < f.length; k++)
            {
                scope.value(f[k], probe);
            }
            if (probe.kind() == JsonKind.ARRAY)
            {
                int n = 0;
                cursor.wrap(probe);
                while (cursor.next(element))
                {
                    n++;
                }
                return n;
            }
        }
        return 0;
    }

    /**
     * Checks a member just written against its group's length.
     *
     * @param column the column's index
     * @param out    the row
     * @param start  where the column's bytes begin in {@code out} (an Array: its LEB128 element count)
     * @return null, or why the record cannot be written (naming the group, both columns and both lengths)
     */
    String written(final int column, final Bytes<?> out, final long start)
    {
        final int g = groupOf[column];
        if (g < 0)
        {
            return null;
        }
        long n = 0;
        int shift = 0;
        long at = start;
        int b;
        do
        {
            b = out.readUnsignedByte(at++);
            n |= (long)(b & 0x7F) << shift;
            shift += 7;
        }
        while ((b & 0x80) != 0 && shift < 64);
        if (groupLength[g] < 0)
        {
            groupLength[g] = (int)n;
            groupLengthFrom[g] = column;
            return null;
        }
        if (groupLength[g] == n)
        {
            return null;
        }
        final BoundColumn c = columns[column];
        final BoundColumn other = columns[groupLengthFrom[g]];
        return "column " + c.name() + " (" + c.type() + ") from path " + pathOf(column) + ": Nested "
            + groupNames[g] + ": " + c.name() + " has " + n + " element(s) but " + other.name() + " has "
            + groupLength[g] + "; the arrays of one Nested structure must be equally long (ClickHouse refuses the "
            + "whole block otherwise: error 190 SIZES_OF_ARRAYS_DOESNT_MATCH)";
    }

    private String memberNames(final int g)
    {
        final List<String> names = new ArrayList<>();
        for (final int i : groupMembers[g])
        {
            names.add(columns[i].name());
        }
        return String.join(", ", names);
    }
}
