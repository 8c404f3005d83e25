//! Route composition and matching on small inline projects: every Spring, JAX-RS and JDK
//! case of the shared rules, literal-beats-template and the unmatched reasons.

use super::*;
use crate::source::index::TypeIndex;
use crate::source::testutil::{op, parsed};

/// Matches `ops` against the routes of `files`; returns `Class.method@file` or the reason.
fn resolve(files: &[(&str, &str)], ops: &[(&str, &str)], base: Option<&str>) -> Vec<String> {
    let parsed = parsed(files);
    let index = TypeIndex::new(&parsed);
    let (routes, _) = compose_routes(&index, &EntryPatterns::default());
    let ops: Vec<_> = ops.iter().map(|(m, p)| op(m, p)).collect();
    match_operations(&ops, &routes, base)
        .into_iter()
        .map(|m| match m {
            OpMatch::Route(i) => {
                let h = &routes[i].handler;
                format!("{}.{}@{}", h.class, h.method, h.file)
            }
            OpMatch::Weak(i, _) => {
                let h = routes[i].dispatcher.as_ref().unwrap();
                format!("weak: {}.{}@{}", h.class, h.method, h.file)
            }
            OpMatch::Unmatched(r) => format!("unmatched: {r}"),
        })
        .collect()
}

const PATHS: &str = r#"package app;
public final class ApiPaths {
    public static final String PRODUCTS = "/products";
    static final String A = "/a", B = A + "/b";
}
"#;

const SPRING: &str = r#"package app;
import static app.ApiPaths.B;
import static org.springframework.web.bind.annotation.RequestMethod.*;

@RestController
@RequestMapping(path = {"", "/v2"})
public class ProductController {
    private static final String ITEM = "/{variant:.+}";

    @GetMapping(ApiPaths.PRODUCTS + ITEM)
    public Product get(@PathVariable String variant) { return null; }

    @RequestMapping(value = "products//save/", method = POST)
    public void save() {}

    @RequestMapping(value = "/all")
    public void any() {}

    @RequestMapping(value = B, method = RequestMethod.DELETE)
    public void constants() {}

    @PutMapping({"/x", "/y"})
    public void arrays() {}
}
"#;

#[test]
fn spring_composition_cases() {
    let files = [
        ("app/ApiPaths.java", PATHS),
        ("app/ProductController.java", SPRING),
    ];
    let got = resolve(
        &files,
        &[
            ("GET", "/products/{id}"),
            ("GET", "/v2/products/{id}"),
            ("POST", "/products/save"),
            ("PATCH", "/all"),
            ("DELETE", "/v2/a/b"),
            ("PUT", "/y"),
            ("PUT", "/v2/x"),
        ],
        None,
    );
    let f = "@app/ProductController.java";
    assert_eq!(
        got,
        [
            format!("ProductController.get{f}"),
            format!("ProductController.get{f}"),
            format!("ProductController.save{f}"),
            format!("ProductController.any{f}"),
            format!("ProductController.constants{f}"),
            format!("ProductController.arrays{f}"),
            format!("ProductController.arrays{f}"),
        ]
    );
}

#[test]
fn literal_beats_template_and_unmatched_reasons() {
    let src = r#"package app;
@RestController
@RequestMapping("/persons")
class PersonController {
    @GetMapping("/{ids}") public void byIds() {}
    @GetMapping("/count") public void count() {}
    @PutMapping("/x") public void put() {}
}
"#;
    let got = resolve(
        &[("app/PersonController.java", src)],
        &[
            ("GET", "/persons/count"),
            ("GET", "/persons/1,2"),
            ("DELETE", "/persons/x"),
            ("GET", "/persons/a/b"),
        ],
        None,
    );
    assert_eq!(got[0], "PersonController.count@app/PersonController.java");
    assert_eq!(got[1], "PersonController.byIds@app/PersonController.java");
    assert_eq!(
        got[2],
        "unmatched: path matches PUT /persons/x in PersonController.java:7 but method differs"
    );
    assert!(
        got[3].starts_with("unmatched: no route for GET /persons/a/b; nearest: GET /persons/"),
        "{}",
        got[3]
    );
}

#[test]
fn spring_inherited_and_interface_mappings() {
    let base = r#"package app;
public abstract class BaseController<T> {
    @GetMapping("/{id}") public T one(@PathVariable long id) { return null; }
    @DeleteMapping("/{id}") public void remove(long id) {}
}
"#;
    let a = r#"package app;
@RestController @RequestMapping("/cats")
public class CatController extends BaseController<Cat> {
    @Override public void remove(long id) {}
}
"#;
    let api = r#"package app;
@RequestMapping("/dogs")
public interface DogApi { @GetMapping List<Dog> list(); }
"#;
    let b = r#"package app;
@RestController
public class DogController implements DogApi { public List<Dog> list() { return null; } }
"#;
    let got = resolve(
        &[
            ("app/BaseController.java", base),
            ("app/CatController.java", a),
            ("app/DogApi.java", api),
            ("app/DogController.java", b),
        ],
        &[
            ("GET", "/cats/{catId}"),
            ("DELETE", "/cats/{id}"),
            ("GET", "/dogs"),
        ],
        None,
    );
    assert_eq!(
        got,
        [
            "CatController.one@app/BaseController.java",
            "CatController.remove@app/CatController.java",
            "DogController.list@app/DogController.java",
        ]
    );
}

#[test]
fn controller_without_response_body_serves_nothing() {
    let src = r#"package app;
@Controller class Page { @GetMapping("/page") public String page() { return "x"; } }
"#;
    let body = r#"package app;
@Controller class Json { @ResponseBody @GetMapping("/json") public String json() { return "x"; }
  @GetMapping("/view") public String view() { return "x"; } }
"#;
    let got = resolve(
        &[("Page.java", src), ("Json.java", body)],
        &[("GET", "/page"), ("GET", "/json"), ("GET", "/view")],
        None,
    );
    assert!(got[0].starts_with("unmatched"), "{}", got[0]);
    assert_eq!(got[1], "Json.json@Json.java");
    assert!(
        got[2].starts_with("unmatched"),
        "a view method is not REST: {}",
        got[2]
    );
}

#[test]
fn jaxrs_application_path_locators_and_base_path() {
    let app = r#"package c;
@ApplicationPath("rest") public class App extends Application {}
"#;
    let geo = r#"package c;
@Path("/geo") public class GeoResource {
    @GET public String root() { return ""; }
    @Path("continents/{continent}") public ContinentResource continent() { return null; }
}
"#;
    let cont = r#"package c;
public class ContinentResource {
    @Path("countries/{code}") public CountryResource country() { return null; }
}
"#;
    let country = r#"package c;
public class CountryResource {
    @GET public String get() { return ""; }
    @GET @Path("cities") public String cities() { return ""; }
    public static class Nested { }
}
"#;
    let v1 = r#"package c;
import static c.Symbols.ALPHA;
@Path("/v1") public class CountryRestV1 {
    @GET @Path(ALPHA + "/{alphacode}") public Object byAlpha() { return null; }
    @GET @Path("region/{region: [a-z]+}") public Object byRegion() { return null; }
}
"#;
    let symbols = "package c;\npublic interface Symbols { String ALPHA = \"alpha\"; }\n";
    let files = [
        ("c/App.java", app),
        ("c/GeoResource.java", geo),
        ("c/ContinentResource.java", cont),
        ("c/CountryResource.java", country),
        ("c/CountryRestV1.java", v1),
        ("c/Symbols.java", symbols),
    ];
    let got = resolve(
        &files,
        &[
            ("GET", "/geo"),
            ("GET", "/geo/continents/{c}/countries/{code}"),
            ("GET", "/geo/continents/{c}/countries/{code}/cities"),
            ("GET", "/v1/alpha/{alphacode}"),
            ("GET", "/v1/region/{region}"),
        ],
        Some("/rest"),
    );
    assert_eq!(
        got,
        [
            "GeoResource.root@c/GeoResource.java",
            "CountryResource.get@c/CountryResource.java",
            "CountryResource.cities@c/CountryResource.java",
            "CountryRestV1.byAlpha@c/CountryRestV1.java",
            "CountryRestV1.byRegion@c/CountryRestV1.java",
        ]
    );
    // Without the base path the spec path is tried as written, which does not match.
    let plain = resolve(&files, &[("GET", "/v1/alpha/{a}")], None);
    assert!(
        plain[0].starts_with("unmatched: no route for GET /v1/alpha/{a}"),
        "{}",
        plain[0]
    );
}

#[test]
fn jdk_contexts_and_branches() {
    let main = r#"package p;
public class Main {
    public static void main(String[] a) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
        server.createContext("/pets", new PetHandler());
        server.createContext("/stats", Main::stats);
    }
    static void stats(HttpExchange ex) { send(ex); }
    static void send(HttpExchange ex) {}
}
"#;
    let handler = r#"package p;
public class PetHandler implements HttpHandler {
    public void handle(HttpExchange ex) {
        String method = ex.getRequestMethod();
        String path = ex.getRequestURI().getPath();
        if (path.equals("/pets")) {
            if ("GET".equals(method)) { listPets(ex); } else { send(ex, 405); }
        } else if (path.matches("/pets/\\d+")) {
            if (method.equals("GET")) { getPet(ex); }
            else if (method.equals("DELETE")) { send(ex, 204); }
        }
    }
    void listPets(HttpExchange ex) {}
    void getPet(HttpExchange ex) {}
    void send(HttpExchange ex, int s) {}
}
"#;
    let got = resolve(
        &[("p/Main.java", main), ("p/PetHandler.java", handler)],
        &[
            ("GET", "/pets"),
            ("GET", "/pets/{id}"),
            ("GET", "/stats"),
            ("POST", "/pets/{id}"),
            ("DELETE", "/pets/{id}"),
        ],
        None,
    );
    assert_eq!(got[0], "PetHandler.listPets@p/PetHandler.java");
    assert_eq!(got[1], "PetHandler.getPet@p/PetHandler.java");
    assert_eq!(got[2], "Main.stats@p/Main.java");
    assert!(
        got[3].starts_with("unmatched: POST /pets/{id} reaches handler PetHandler"),
        "{}",
        got[3]
    );
    assert_eq!(got[4], "PetHandler.send@p/PetHandler.java");
}

#[test]
fn jdk_guard_clauses_and_segment_counts() {
    let main = r#"package p;
class Main { void m(HttpServer s) { s.createContext("/owners", new OwnerHandler()); } }
"#;
    let handler = r#"package p;
class OwnerHandler implements HttpHandler {
    public void handle(HttpExchange ex) {
        String method = ex.getRequestMethod();
        String[] segs = ex.getRequestURI().getPath().split("/");
        if (!method.equals("GET")) { throw new IllegalStateException(); }
        if (segs.length == 2) { list(ex); }
        else if (segs.length == 3) { one(ex); }
        else if (segs.length == 4 && segs[3].equals("pets")) { pets(ex); }
        else { missing(ex); }
    }
    void list(HttpExchange ex) {}
    void one(HttpExchange ex) {}
    void pets(HttpExchange ex) {}
    void missing(HttpExchange ex) {}
}
"#;
    let got = resolve(
        &[("p/Main.java", main), ("p/OwnerHandler.java", handler)],
        &[
            ("GET", "/owners"),
            ("GET", "/owners/{id}"),
            ("POST", "/owners"),
            ("GET", "/owners/{id}/x/y"),
        ],
        None,
    );
    assert_eq!(got[0], "OwnerHandler.list@p/OwnerHandler.java");
    assert_eq!(got[1], "OwnerHandler.one@p/OwnerHandler.java");
    assert!(got[2].starts_with("unmatched"), "{}", got[2]);
    assert!(
        got[3].starts_with("unmatched"),
        "the final else is a 404, not a route: {}",
        got[3]
    );
}
