package mastor.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * mastor's assertion semantics on JSON values, as its runner applies them: field paths
 * (dotted, {@code [n]}, {@code [*]}, quoted keys; {@code ""} or {@code $} is the whole body)
 * and the operators ({@code equals} compares numbers numerically, also against numeric
 * strings; {@code is_null} holds for a missing field). Used by {@code MastorAssert}; a
 * reviewer reading a test does not need it.
 */
final class MastorJson {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TOKEN = Pattern.compile(
            "\\[\"((?:[^\"\\\\]|\\\\.)*)\"\\]|([^.\\[\\]]+)|\\[(\\d+|\\*)\\]");
    private static final Pattern NUMERIC =
            Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

    private MastorJson() {}

    /**
     * Resolves a field path into {@code out}; returns an error text when a {@code [*]} does not
     * land on a non-empty array. Missing fields resolve to MissingNode.
     */
    static String resolve(JsonNode body, String path, List<JsonNode> out) {
        List<JsonNode> current = new ArrayList<>();
        current.add(body);
        Matcher m = TOKEN.matcher(bare(path));
        while (m.find()) {
            List<JsonNode> next = new ArrayList<>();
            String key = m.group(1) != null ? parse("\"" + m.group(1) + "\"").textValue() : m.group(2);
            for (JsonNode node : current) {
                if (key != null) {
                    JsonNode child = node.isObject() ? node.get(key) : null;
                    next.add(child == null ? MissingNode.getInstance() : child);
                } else if (m.group(3).equals("*")) {
                    if (!node.isArray() || node.size() == 0) {
                        return "[*] needs a non-empty array, found " + show(node);
                    }
                    node.forEach(next::add);
                } else {
                    int index = Integer.parseInt(m.group(3));
                    JsonNode child = node.isArray() ? node.get(index) : null;
                    next.add(child == null ? MissingNode.getInstance() : child);
                }
            }
            current = next;
        }
        out.addAll(current);
        return null;
    }

    /** The path without surrounding blanks and a leading {@code $} / {@code $.}. */
    static String bare(String path) {
        String p = path.trim();
        if (p.equals("$")) return "";
        return p.startsWith("$.") ? p.substring(2) : p;
    }

    /** Returns null when the assertion holds, else why not. */
    static String holds(String op, JsonNode actual, JsonNode expected) {
        if (actual.isMissingNode()) {
            return op.equals("is_null") ? null : "field is missing";
        }
        switch (op) {
            case "equals":
                return jsonEquals(actual, expected) ? null : "not equal";
            case "not_equals":
                return jsonEquals(actual, expected) ? "equal" : null;
            case "is_null":
                return actual.isNull() ? null : "not null";
            case "not_null":
                return actual.isNull() ? "null" : null;
            case "gt":
            case "gte":
            case "lt":
            case "lte": {
                BigDecimal a = number(actual);
                BigDecimal e = number(expected);
                if (a == null || e == null) {
                    return "not numeric";
                }
                int c = a.compareTo(e);
                boolean ok = op.equals("gt") ? c > 0 : op.equals("gte") ? c >= 0 : op.equals("lt") ? c < 0 : c <= 0;
                return ok ? null : "comparison does not hold";
            }
            case "matches":
                if (!expected.isTextual()) {
                    return "`matches` needs a regex string";
                }
                try {
                    return Pattern.compile(expected.textValue()).matcher(stringForm(actual)).find()
                            ? null : "no match";
                } catch (PatternSyntaxException e) {
                    return "invalid regex: " + e.getDescription();
                }
            case "type":
                return hasType(actual, stringForm(expected)) ? null : "type is " + typeName(actual);
            case "contains":
                if (actual.isTextual()) {
                    return actual.textValue().contains(stringForm(expected)) ? null : "substring not found";
                }
                if (actual.isArray()) {
                    for (JsonNode item : actual) {
                        if (jsonEquals(item, expected)) {
                            return null;
                        }
                    }
                    return "no such element";
                }
                if (actual.isObject()) {
                    return actual.has(stringForm(expected)) ? null : "no such key";
                }
                return "not a string, array or object";
            case "length": {
                // A number, or {"op": "gte", "value": 1} with op one of the comparisons.
                String cmp = "equals";
                BigDecimal e = number(expected);
                if (e == null && expected.isObject()) {
                    cmp = expected.path("op").asText("");
                    e = number(expected.path("value"));
                }
                if (e == null || !List.of("equals", "not_equals", "gt", "gte", "lt", "lte").contains(cmp)) {
                    return "`length` expects a number or {\"op\": \"gte\", \"value\": 1}";
                }
                long n;
                if (actual.isTextual()) {
                    n = actual.textValue().codePointCount(0, actual.textValue().length());
                } else if (actual.isArray() || actual.isObject()) {
                    n = actual.size();
                } else {
                    return "no length";
                }
                int c = BigDecimal.valueOf(n).compareTo(e);
                boolean ok;
                switch (cmp) {
                    case "equals": ok = c == 0; break;
                    case "not_equals": ok = c != 0; break;
                    case "gt": ok = c > 0; break;
                    case "gte": ok = c >= 0; break;
                    case "lt": ok = c < 0; break;
                    default: ok = c <= 0; break;
                }
                return ok ? null : "length is " + n;
            }
            default:
                return "unknown operator " + op;
        }
    }

    /** JSON equality with numbers compared numerically and numeric strings matching by text. */
    static boolean jsonEquals(JsonNode a, JsonNode e) {
        if (a.isNumber() && e.isNumber()) {
            return a.decimalValue().compareTo(e.decimalValue()) == 0;
        }
        if ((a.isNumber() && e.isTextual()) || (a.isTextual() && e.isNumber())) {
            BigDecimal x = number(a);
            BigDecimal y = number(e);
            return x != null && y != null && x.compareTo(y) == 0;
        }
        if (a.isArray() && e.isArray()) {
            if (a.size() != e.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!jsonEquals(a.get(i), e.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isObject() && e.isObject()) {
            if (a.size() != e.size()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                JsonNode other = e.get(f.getKey());
                if (other == null || !jsonEquals(f.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(e);
    }

    static BigDecimal number(JsonNode n) {
        if (n.isNumber()) {
            return n.decimalValue();
        }
        if (n.isTextual() && NUMERIC.matcher(n.textValue().trim()).matches()) {
            return new BigDecimal(n.textValue().trim());
        }
        return null;
    }

    static boolean hasType(JsonNode n, String type) {
        switch (type) {
            case "integer":
                return n.isIntegralNumber()
                        || (n.isNumber() && n.decimalValue().stripTrailingZeros().scale() <= 0);
            default:
                return typeName(n).equals(type)
                        || (type.equals("number") && n.isNumber());
        }
    }

    static String typeName(JsonNode n) {
        if (n.isNull()) return "null";
        if (n.isBoolean()) return "boolean";
        if (n.isNumber()) return "number";
        if (n.isTextual()) return "string";
        if (n.isArray()) return "array";
        if (n.isObject()) return "object";
        return "missing";
    }

    /** Strings as they are, other values as JSON text, a missing value as empty text. */
    static String stringForm(JsonNode n) {
        if (n.isMissingNode()) return "";
        return n.isTextual() ? n.textValue() : n.toString();
    }

    static String show(JsonNode n) {
        return n.isMissingNode() ? "(missing)" : n.toString();
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("mastor export wrote invalid JSON: " + json, e);
        }
    }
}
