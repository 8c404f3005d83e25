//! Per-operation slices (`--bundle slice`): exact slices on the fixtures, interface →
//! single implementation, exception handlers, original line numbers, the hand-checked
//! evidence of the reference suite inside every slice, and the mode kept by a session.

use crate::support;

use mastor::llm::scripted::ScriptedServer;
use mastor::project::bundle_index;
use mastor::source::slice::{ProjectSlicer, Slice};
use mastor::source::{AnalyseOptions, Analysis, analyse};
use pretty_assertions::assert_eq;
use std::path::Path;
use support::*;

fn analysed(root: &Path, spec: &str) -> Analysis {
    let loaded = mastor::spec::load(&root.join(spec)).unwrap();
    analyse(root, &loaded, &AnalyseOptions::default()).unwrap()
}

fn slice_of(root: &Path, analysis: &Analysis, op: &str) -> Slice {
    ProjectSlicer::new(root, analysis)
        .slice(op)
        .unwrap_or_else(|| panic!("{op} has no slice"))
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
}

/// An OpenAPI 3 spec with one `get` per path.
fn spec(paths: &[&str]) -> String {
    let paths: Vec<String> = paths
        .iter()
        .map(|p| {
            format!(r#""{p}": {{"get": {{"responses": {{"200": {{"description": "ok"}}}}}}}}"#)
        })
        .collect();
    format!(
        r#"{{"openapi": "3.0.1", "info": {{"title": "t", "version": "1"}}, "paths": {{{}}}}}"#,
        paths.join(",")
    )
}

/// `GET /pets/{petId}`, checked by hand against the sources: PetHandler's header, field
/// and constructor, the `handle` dispatcher (its catch blocks map exceptions to statuses)
/// and `getPet`, not the other handlers (64-95, 100-129); ApiException whole (`notFound`,
/// `badRequest` via `Http.pathId`, `methodNotAllowed`, `status()` in the catch); Http's
/// `sendJson`, `sendError` and `pathId`, not `sendNoContent`, `readBody`, `query`; Json's
/// `write` → `writeValue` → `writeString`, not the parser; Owner's declaration (a PetStore
/// field type); Pet's declaration with `copy`, `setStatus`, `ageCategory`, `toJson` and
/// `getId` (the seeding `add` calls it), not the other getters; PetStore's declaration
/// (constructor with the seed data), the `add` it seeds through, and `readPet`.
const PETSTORE_GET: &str = "\
src/main/java/petstore/handlers/PetHandler.java: 1-63, 96-99, 130
src/main/java/petstore/http/ApiException.java: 1-28
src/main/java/petstore/http/Http.java: 1-26, 34-39, 47-55, 80
src/main/java/petstore/json/Json.java: 1-20, 33-37, 212-268
src/main/java/petstore/json/JsonException.java: 1-9
src/main/java/petstore/store/Owner.java: 1-16, 38
src/main/java/petstore/store/Pet.java: 1-35, 57-59, 69-94
src/main/java/petstore/store/PetStore.java: 1-39, 45-56, 126
";

#[test]
fn petstore_get_pet_slice_is_exact() {
    let root = fixture("petstore-jdk");
    let analysis = analysed(&root, "openapi.json");
    let slice = slice_of(&root, &analysis, GET);
    assert_eq!(slice.outline(), PETSTORE_GET);
}

const CONTROLLER: &str = "package app.web;

import app.service.UserService;
import org.springframework.web.bind.annotation.*;

@RestController
public class UserController {
    private final UserService users;

    public UserController(UserService users) { this.users = users; }

    @GetMapping(\"/users/{id}\")
    public String get(@PathVariable long id) {
        return users.find(id);
    }

    @GetMapping(\"/users\")
    public String list() {
        return users.all();
    }
}
";

const SERVICE: &str = "package app.service;

public interface UserService {
    String find(long id);

    String all();
}
";

const IMPL: &str = "package app.service;

public class UserServiceImpl implements UserService {
    public String find(long id) {
        if (id < 0) {
            throw new NotFound(id);
        }
        return \"user\" + id;
    }

    public String all() {
        return \"[]\";
    }
}
";

const NOT_FOUND: &str = "package app.service;

public class NotFound extends RuntimeException {
    public NotFound(long id) { super(\"no user \" + id); }
}
";

const ADVICE: &str = "package app.web;

import app.service.NotFound;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.*;

@RestControllerAdvice
public class Errors {
    @ExceptionHandler(NotFound.class)
    public ResponseEntity<String> notFound(NotFound e) {
        return ResponseEntity.status(404).body(e.getMessage());
    }

    @ExceptionHandler(Conflict.class)
    public ResponseEntity<String> conflict(Conflict e) {
        return ResponseEntity.status(409).build();
    }
}
";

const CONFLICT: &str = "package app.web;

public class Conflict extends RuntimeException {
}
";

fn users_project(root: &Path, second_impl: bool) {
    let j = "src/main/java/app";
    write(
        root,
        &[
            ("openapi.json", &spec(&["/users/{id}", "/users"])),
            (&format!("{j}/web/UserController.java"), CONTROLLER),
            (&format!("{j}/web/Errors.java"), ADVICE),
            (&format!("{j}/web/Conflict.java"), CONFLICT),
            (&format!("{j}/service/UserService.java"), SERVICE),
            (&format!("{j}/service/UserServiceImpl.java"), IMPL),
            (&format!("{j}/service/NotFound.java"), NOT_FOUND),
        ],
    );
    if second_impl {
        let other = IMPL.replace("UserServiceImpl", "CachedUserService");
        write(
            root,
            &[(&format!("{j}/service/CachedUserService.java"), &other)],
        );
    }
}

#[test]
fn an_interface_call_reaches_its_single_implementation_and_the_advice() {
    let dir = tempfile::tempdir().unwrap();
    users_project(dir.path(), false);
    let analysis = analysed(dir.path(), "openapi.json");
    let slice = slice_of(dir.path(), &analysis, "GET /users/{id}");
    // The handler and its class header, not `list`; the interface's `find` and the one
    // implementation's, not `all`; the exception; the advice's NotFound mapping only.
    assert_eq!(
        slice.outline(),
        "\
src/main/java/app/web/UserController.java: 1-15, 21
src/main/java/app/service/NotFound.java: 1-5
src/main/java/app/service/UserService.java: 1-4, 7
src/main/java/app/service/UserServiceImpl.java: 1-9, 14
src/main/java/app/web/Errors.java: 1-12, 18
"
    );
    let list = slice_of(dir.path(), &analysis, "GET /users");
    assert!(
        !list.shows("src/main/java/app/web/Errors.java", 10),
        "{}",
        list.outline()
    );
    assert!(list.shows("src/main/java/app/service/UserServiceImpl.java", 11));
    assert!(!list.shows("src/main/java/app/service/UserServiceImpl.java", 6));
}

#[test]
fn two_implementations_are_not_guessed_between() {
    let dir = tempfile::tempdir().unwrap();
    users_project(dir.path(), true);
    let analysis = analysed(dir.path(), "openapi.json");
    let slice = slice_of(dir.path(), &analysis, "GET /users/{id}");
    let files: Vec<&str> = slice.files.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        files,
        [
            "src/main/java/app/web/UserController.java",
            "src/main/java/app/service/UserService.java",
        ]
    );
}

#[test]
fn a_jaxrs_exception_mapper_of_a_thrown_exception_is_included() {
    let dir = tempfile::tempdir().unwrap();
    let j = "src/main/java/app";
    write(
        dir.path(),
        &[
            ("openapi.json", &spec(&["/items/{id}"])),
            (
                &format!("{j}/ItemResource.java"),
                "package app;\n\nimport javax.ws.rs.*;\n\n@Path(\"/items\")\npublic class ItemResource {\n    @GET\n    @Path(\"/{id}\")\n    public String get(@PathParam(\"id\") long id) {\n        throw new Gone();\n    }\n}\n",
            ),
            (
                &format!("{j}/Gone.java"),
                "package app;\n\npublic class Gone extends RuntimeException {\n}\n",
            ),
            (
                &format!("{j}/Other.java"),
                "package app;\n\npublic class Other extends RuntimeException {\n}\n",
            ),
            (
                &format!("{j}/GoneMapper.java"),
                "package app;\n\nimport javax.ws.rs.core.Response;\nimport javax.ws.rs.ext.*;\n\n@Provider\npublic class GoneMapper implements ExceptionMapper<Gone> {\n    public Response toResponse(Gone e) {\n        return Response.status(410).build();\n    }\n}\n",
            ),
            (
                &format!("{j}/OtherMapper.java"),
                "package app;\n\nimport javax.ws.rs.core.Response;\nimport javax.ws.rs.ext.*;\n\n@Provider\npublic class OtherMapper implements ExceptionMapper<Other> {\n    public Response toResponse(Other e) {\n        return Response.status(418).build();\n    }\n}\n",
            ),
        ],
    );
    let analysis = analysed(dir.path(), "openapi.json");
    let slice = slice_of(dir.path(), &analysis, "GET /items/{id}");
    assert_eq!(
        slice.outline(),
        "\
src/main/java/app/ItemResource.java: 1-12
src/main/java/app/Gone.java: 1-4
src/main/java/app/GoneMapper.java: 1-11
"
    );
}

/// Every line cited by the hand-checked evidence of petstore-jdk's reference suite is in
/// its operation's slice, and shows there, under its original number, the original text;
/// the bundle index (what evidence refs are checked against) equals the closure's files
/// with their full line counts.
#[test]
fn reference_evidence_is_inside_the_slices_under_original_line_numbers() {
    let root = fixture("petstore-jdk");
    let analysis = analysed(&root, "openapi.json");
    let slicer = ProjectSlicer::new(&root, &analysis);
    let suite: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("suites/reference.json")).unwrap())
            .unwrap();
    let mut cited = 0;
    for oracle in suite["oracles"].as_array().unwrap() {
        let op = oracle["op_id"].as_str().unwrap();
        let slice = slicer.slice(op).unwrap();
        let bundle = slicer.bundle(&slice);
        let index = bundle_index(&bundle);
        let (_, chunks) = mastor::agents::fit::split_bundle(&bundle.text);
        for r in oracle["evidence_refs"].as_array().unwrap() {
            let file = r["file"].as_str().unwrap();
            let original = std::fs::read_to_string(root.join(file)).unwrap();
            let lines: Vec<&str> = original.lines().collect();
            assert_eq!(index.files.get(file), Some(&lines.len()), "{op}: {file}");
            let chunk = chunks.iter().find(|c| c.path == file).unwrap();
            let (a, b) = (
                r["start_line"].as_u64().unwrap(),
                r["end_line"].as_u64().unwrap(),
            );
            for line in a as usize..=b as usize {
                assert!(slice.shows(file, line), "{op}: {file}:{line} left out");
                let shown = mastor::source::numbered::line(line, lines[line - 1]);
                assert!(
                    chunk.text.lines().any(|l| l == shown),
                    "{op}: {file}:{line} not shown as {shown:?}"
                );
                cited += 1;
            }
        }
    }
    assert!(cited > 100, "{cited} cited lines");
}

/// The slice is smaller than the closure for every petstore operation, and a left-out
/// region is one marker line naming the original lines.
#[test]
fn slices_are_smaller_and_mark_what_they_leave_out() {
    let root = fixture("petstore-jdk");
    let analysis = analysed(&root, "openapi.json");
    let slicer = ProjectSlicer::new(&root, &analysis);
    for (op, closure) in &analysis.bundles {
        let slice = slicer.bundle(&slicer.slice(op).unwrap());
        assert!(slice.tokens_est < closure.tokens_est, "{op}");
    }
    let get = slicer.bundle(&slicer.slice(GET).unwrap());
    assert!(
        get.text.contains("\n... lines 64-95 left out\n"),
        "{}",
        get.text
    );
    assert!(!get.text.contains("void listPets"));
}

fn manifest_bundle(out: &Path) -> Option<String> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    m["config"]["settings"]["bundle"]
        .as_str()
        .map(str::to_string)
}

/// `run --bundle slice` sends slices and records the mode; a resumed run without the flag
/// keeps it; a session without the setting reads closures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_sends_slices_and_a_resumed_session_keeps_the_mode() {
    let server = ScriptedServer::start(petstore_script()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "tests/fixtures/petstore-jdk",
            "--out",
            out,
            "--json",
            "--op",
            GET,
            "--no-multi-op",
            "--no-discovery",
            "--no-challenger",
        ];
        args.extend(extra);
        let mut cmd = mastor_cmd(&server.base_url(), dir.path(), &args);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
        let output = cmd.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let sent_slice = |from: usize| {
        server.requests()[from..]
            .iter()
            .filter(|r| r.op.as_deref() == Some(GET))
            .map(|r| r.body["messages"].to_string())
            .any(|m| m.contains("lines 64-95 left out"))
    };
    let slice_out = dir.path().join("s");
    let slice_out = slice_out.to_str().unwrap();
    tokio::task::block_in_place(|| run(slice_out, &["--bundle", "slice"]));
    assert!(sent_slice(0));
    assert_eq!(
        manifest_bundle(Path::new(slice_out)).as_deref(),
        Some("slice")
    );
    // Resumed, extraction asked again: with the slice, though the flag is not given.
    let before = server.requests().len();
    tokio::task::block_in_place(|| run(slice_out, &["--refresh-from", "extraction"]));
    assert!(server.requests().len() > before);
    assert!(sent_slice(before));
    assert_eq!(
        manifest_bundle(Path::new(slice_out)).as_deref(),
        Some("slice")
    );

    let closure_out = dir.path().join("c");
    let closure_out = closure_out.to_str().unwrap();
    let before = server.requests().len();
    tokio::task::block_in_place(|| run(closure_out, &["--bundle", "closure"]));
    assert!(server.requests().len() > before);
    assert!(!sent_slice(before));
    assert_eq!(manifest_bundle(Path::new(closure_out)), None);
    // A session without the setting ran before it was recorded: it keeps closures.
    let before = server.requests().len();
    tokio::task::block_in_place(|| run(closure_out, &["--refresh-from", "extraction"]));
    assert!(server.requests().len() > before);
    assert!(!sent_slice(before));
    assert_eq!(manifest_bundle(Path::new(closure_out)), None);

    // A new session reads slices by default, and records it.
    let default_out = dir.path().join("d");
    let default_out = default_out.to_str().unwrap();
    let before = server.requests().len();
    tokio::task::block_in_place(|| run(default_out, &[]));
    assert!(sent_slice(before));
    assert_eq!(
        manifest_bundle(Path::new(default_out)).as_deref(),
        Some("slice")
    );
}

/// `GET /products/{productId}` of the Spring fixture, checked by hand: the controller's
/// header (its `@RequestMapping(ApiPaths.PRODUCTS)`), field and constructor and `get`, not
/// the other handlers; ProductService's declaration and `findById` only; the repository
/// interface's header (`findById` is inherited from Spring Data, so none of its own
/// queries); Product's fields and the field types one level down (Category, Brand);
/// ApiPaths' constants.
#[test]
fn shop_spring_get_product_slice_is_exact() {
    let root = fixture("shop-spring");
    let loaded = mastor::spec::load(&mastor::spec::find_spec(&root).unwrap().path).unwrap();
    let analysis = analyse(&root, &loaded, &AnalyseOptions::default()).unwrap();
    let slice = slice_of(&root, &analysis, "GET /products/{productId}");
    let c = "catalog/src/main/java/com/example/shop/catalog";
    assert_eq!(
        slice.outline(),
        format!(
            "\
{c}/web/ProductController.java: 1-30, 37-42, 97
{c}/domain/Brand.java: 1-6, 23
{c}/domain/Category.java: 1-21, 34
{c}/domain/Product.java: 1-23, 56
{c}/repository/ProductRepository.java: 1-7, 14
{c}/service/ProductService.java: 1-17, 23-25, 53
{c}/web/ApiPaths.java: 1-11
"
        )
    );
}

/// `scan` reports the slices' figures by default; `--bundle closure`, the closures'.
#[test]
fn scan_reports_the_figures_of_the_chosen_mode() {
    let tokens = |extra: &[&str]| -> u64 {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mastor"))
            .args(["scan", "tests/fixtures/petstore-jdk", "--json"])
            .args(extra)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let op = report["operations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["op_id"] == GET)
            .unwrap();
        op["bundle"]["tokens_est"].as_u64().unwrap()
    };
    let closure = tokens(&["--bundle", "closure"]);
    let slice = tokens(&[]);
    assert!(slice * 2 < closure, "slice {slice}, closure {closure}");
}
