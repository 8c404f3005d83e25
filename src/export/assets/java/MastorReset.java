package mastor.suite;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The reset hook of the exported suite: puts the API back to its seed data, as
 * {@code mastor check --reset} does. The project configures it, the suite never guesses:
 *
 * <ul>
 *   <li>{@code -Dmastor.reset=...} or the environment variable {@code MASTOR_SUITE_RESET}: an
 *       {@code http(s)://} URL (POSTed to; any 2xx is a success) or a shell command (run with
 *       {@code sh -c}; exit 0 is a success). Unset: no reset.
 *   <li>{@code -Dmastor.resetScope=fresh|writers|each} ({@code MASTOR_SUITE_RESET_SCOPE}):
 *       before which tests it runs besides the start of the run. {@code fresh} (the default):
 *       tests tagged {@code fresh-state}; {@code writers}: also every test tagged {@code
 *       writes}; {@code each}: every test.
 *   <li>{@code -Dmastor.resetTimeout=SECONDS} ({@code MASTOR_SUITE_RESET_TIMEOUT}, default
 *       120): past it the command is killed and the test fails naming it.
 * </ul>
 *
 * <p>With a reset configured, it also runs once before the first test, so a suite run twice
 * against one server sees the seed data both times. A failed reset fails the test it was
 * for, naming the command and why.
 */
public final class MastorReset {
    private static boolean started;

    private MastorReset() {}

    /** Once per run, before the first test (every class calls it from {@code @BeforeAll}). */
    public static synchronized void atStart() throws Exception {
        if (!started) {
            started = true;
            run("the start of the run");
        }
    }

    /** Before each test (from {@code @BeforeEach}): resets when the scope covers its tags. */
    public static void before(Set<String> tags, String test) throws Exception {
        String scope = setting("mastor.resetScope", "MASTOR_SUITE_RESET_SCOPE", "fresh");
        boolean fresh = tags.contains("fresh-state");
        boolean writes = fresh || tags.contains("writes");
        boolean due;
        switch (scope) {
            case "fresh": due = fresh; break;
            case "writers": due = writes; break;
            case "each": due = true; break;
            default:
                throw new IllegalStateException("mastor.resetScope is '" + scope
                        + "'; expected fresh, writers or each");
        }
        if (due) {
            run(test);
        }
    }

    /** Runs the configured reset, if any; throws naming it when it fails. */
    static void run(String before) throws Exception {
        String hook = setting("mastor.reset", "MASTOR_SUITE_RESET", "");
        if (hook.isBlank()) {
            return;
        }
        long limit = Long.parseLong(setting("mastor.resetTimeout", "MASTOR_SUITE_RESET_TIMEOUT", "120"));
        if (hook.startsWith("http://") || hook.startsWith("https://")) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(limit)).build();
            HttpRequest req = HttpRequest.newBuilder(URI.create(hook))
                    .timeout(Duration.ofSeconds(limit))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build();
            HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (res.statusCode() / 100 != 2) {
                throw new IllegalStateException("reset URL " + hook + " (before " + before + ") answered "
                        + res.statusCode());
            }
            return;
        }
        Process p = new ProcessBuilder("sh", "-c", hook)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        if (!p.waitFor(limit, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new IllegalStateException("reset command `" + hook + "` (before " + before
                    + ") did not finish within " + limit + " s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("reset command `" + hook + "` (before " + before
                    + ") failed with exit code " + p.exitValue());
        }
    }

    private static String setting(String property, String env, String fallback) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(env);
        }
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
