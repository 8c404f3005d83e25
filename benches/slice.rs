//! Closure bundles against per-operation slices (`--bundle closure|slice`): for every
//! fixture under `tests/fixtures/` and a synthetic Spring project of 202 classes, the
//! estimated tokens per operation (median and max, the bundle's bytes / 4) in both modes,
//! and the evidence coverage: of the source lines a correct oracle cites, hand-checked
//! (a fixture's `evidence.json` and `suites/reference.json`, see
//! `mastor::source::slice::cited`; the synthetic project's known lines), how many each
//! mode shows. Cited lines a slice leaves out are listed under the table.
//!
//! A second table gives, per fixture, the prompt tokens per operation of each agent as
//! the run's own dry-run plan estimates them (default bundle mode), beside the figures
//! recorded before each agent was given only what it needs (`support/agent_tokens.rs`).
//! Run with `cargo bench --bench slice`.

#[path = "support/agent_tokens.rs"]
mod agent_tokens;

use mastor::source::slice::ProjectSlicer;
use mastor::source::slice::cited::{Cite, coverage, hand_checked};
use mastor::source::{AnalyseOptions, analyse};
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
        .expect("fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    dirs.sort();
    println!(
        "{:<22} {:>4}  {:>15}  {:>15}  {:>13}  {:>21}",
        "project",
        "ops",
        "closure med/max",
        "slice med/max",
        "closure/slice",
        "cited lines cl / sl"
    );
    let mut missing = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let cites = hand_checked(dir).unwrap_or_else(|e| panic!("{e}"));
        missing.extend(measure(&name, dir, &cites));
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let cites = synthetic(tmp.path());
    missing.extend(measure("synthetic (202 cls)", tmp.path(), &cites));
    for (project, c) in &missing {
        println!(
            "left out by the slice: {project}: {}: {}:{}",
            c.op, c.file, c.line
        );
    }
    println!();
    println!("prompt tokens per operation by agent (dry-run estimate, 3 characters a token)");
    println!(
        "{:<24} {:<22} {:>8} {:>8}",
        "project", "agent", "before", "now"
    );
    let before = agent_tokens::before(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/agent_tokens_before.json"),
    );
    for dir in &dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        match agent_tokens::plan(dir, spec_of(dir).as_deref()) {
            Ok(now) => agent_tokens::print(&name, &now, before.get(name.as_ref())),
            Err(e) => println!("{name:<24} no plan: {e}"),
        }
    }
}

/// The spec a fixture's `expected.json` names, if it names one.
fn spec_of(root: &Path) -> Option<std::path::PathBuf> {
    std::fs::read_to_string(root.join("expected.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["spec"].as_str().map(|s| root.join(s)))
}

/// Prints one row; returns the cited lines the slice leaves out.
fn measure(name: &str, root: &Path, cites: &[Cite]) -> Vec<(String, Cite)> {
    let spec = match spec_of(root) {
        Some(p) => p,
        None => mastor::spec::find_spec(root).expect("spec").path,
    };
    let loaded = mastor::spec::load(&spec).expect("spec loads");
    let analysis = analyse(root, &loaded, &AnalyseOptions::default()).expect("analyse");
    let slicer = ProjectSlicer::new(root, &analysis);
    let (mut closure, mut slice) = (Vec::new(), Vec::new());
    for (op, bundle) in &analysis.bundles {
        let Some(s) = slicer.slice(op) else { continue };
        closure.push(bundle.tokens_est);
        slice.push(slicer.bundle(&s).tokens_est);
    }
    let ratio = if closure.is_empty() {
        "-".to_string()
    } else {
        let (c, s): (usize, usize) = (closure.iter().sum(), slice.iter().sum());
        format!("{:.2}", c as f64 / s.max(1) as f64)
    };
    let cov = coverage(&analysis, &slicer, cites);
    let evidence = if cites.is_empty() {
        "n/a".to_string()
    } else {
        format!(
            "{}/{n} / {}/{n}",
            cov.in_closure,
            cov.in_slice,
            n = cov.cited
        )
    };
    println!(
        "{name:<22} {:>4}  {:>15}  {:>15}  {ratio:>13}  {evidence:>21}",
        closure.len(),
        med_max(&mut closure),
        med_max(&mut slice)
    );
    cov.missing
        .into_iter()
        .map(|c| (name.to_string(), c))
        .collect()
}

fn med_max(v: &mut [usize]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    v.sort_unstable();
    format!("{}/{}", v[v.len() / 2], v[v.len() - 1])
}

const DOMAINS: usize = 25;
const PAD_METHODS: usize = 12;

/// Writes a Spring project: per domain a controller, a service interface and its one
/// implementation, a repository, a mapper, an entity and a DTO (each linked to the next
/// domain's, as entity graphs are) and an exception; one advice class maps the
/// exceptions. Returns the lines a reader must see for `GET /d{n}/items/{id}`: the
/// handler, the implementation's throw, and the advice's mapping.
fn synthetic(root: &Path) -> Vec<Cite> {
    let base = "src/main/java/com/synth";
    let mut cites = Vec::new();
    let mut paths = String::new();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    write(
        &format!("{base}/web/ApiException.java"),
        "package com.synth.web;\n\npublic class ApiException extends RuntimeException {\n    public ApiException(String m) { super(m); }\n}\n",
    );
    let advice = "package com.synth.web;\n\nimport org.springframework.http.ResponseEntity;\nimport org.springframework.web.bind.annotation.*;\n\n@RestControllerAdvice\npublic class Errors {\n    @ExceptionHandler(ApiException.class)\n    public ResponseEntity<String> notFound(ApiException e) {\n        return ResponseEntity.status(404).body(e.getMessage());\n    }\n}\n";
    write(&format!("{base}/web/Errors.java"), advice);
    for d in 0..DOMAINS {
        let n = (d + 1) % DOMAINS;
        let (pkg, dir) = (format!("com.synth.d{d}"), format!("{base}/d{d}"));
        let head = format!(
            "package {pkg};\n\nimport java.util.*;\nimport com.synth.web.ApiException;\nimport com.synth.d{n}.*;\n\n"
        );
        let file = |kind: &str| format!("{dir}/Item{d}{kind}.java");
        let controller = format!(
            "{head}import org.springframework.web.bind.annotation.*;\n\n@RestController\n@RequestMapping(\"/d{d}\")\npublic class Item{d}Controller {{\n    private final Item{d}Service service;\n\n    public Item{d}Controller(Item{d}Service service) {{ this.service = service; }}\n\n    @GetMapping(\"/items\")\n    public List<Item{d}Dto> list() {{ return service.list(); }}\n\n    @GetMapping(\"/items/{{id}}\")\n    public Item{d}Dto get(@PathVariable long id) {{ return service.get(id); }}\n\n    @PostMapping(\"/items\")\n    public Item{d}Dto create(@RequestBody Item{d}Dto dto) {{ return service.create(dto); }}\n"
        );
        let get_line = line_of(&controller, "Dto get(");
        cites.push(cite(d, file("Controller"), get_line));
        write(&file("Controller"), &pad(controller));
        write(
            &file("Service"),
            &format!(
                "{head}public interface Item{d}Service {{\n    List<Item{d}Dto> list();\n    Item{d}Dto get(long id);\n    Item{d}Dto create(Item{d}Dto dto);\n}}\n"
            ),
        );
        let service = format!(
            "{head}public class Item{d}ServiceImpl implements Item{d}Service {{\n    private final Item{d}Repository repo = new Item{d}Repository();\n    private final Item{d}Mapper mapper = new Item{d}Mapper();\n\n    public List<Item{d}Dto> list() {{ return new ArrayList<>(); }}\n\n    public Item{d}Dto get(long id) {{\n        Item{d}Entity e = repo.find(id);\n        if (e == null) throw new Item{d}NotFound(id);\n        return mapper.toDto(e);\n    }}\n\n    public Item{d}Dto create(Item{d}Dto dto) {{ return mapper.toDto(repo.save(mapper.toEntity(dto))); }}\n"
        );
        let throw_line = line_of(&service, "throw new");
        cites.push(cite(d, file("ServiceImpl"), throw_line));
        cites.push(cite(
            d,
            format!("{base}/web/Errors.java"),
            line_of(advice, "status(404)"),
        ));
        write(&file("ServiceImpl"), &pad(service));
        write(
            &file("NotFound"),
            &format!(
                "{head}public class Item{d}NotFound extends ApiException {{\n    public Item{d}NotFound(long id) {{ super(\"item {d} \" + id); }}\n}}\n"
            ),
        );
        for kind in ["Dto", "Entity"] {
            write(
                &file(kind),
                &pad(format!(
                    "{head}public class Item{d}{kind} {{\n    private long id;\n    private String name;\n    private Item{n}{kind} related;\n\n    public long getId() {{ return id; }}\n    public String getName() {{ return name; }}\n"
                )),
            );
        }
        write(
            &file("Repository"),
            &pad(format!(
                "{head}public class Item{d}Repository {{\n    private final Map<Long, Item{d}Entity> rows = new HashMap<>();\n\n    public Item{d}Entity find(long id) {{ return rows.get(id); }}\n    public Item{d}Entity save(Item{d}Entity e) {{ rows.put(e.getId(), e); return e; }}\n"
            )),
        );
        write(
            &file("Mapper"),
            &pad(format!(
                "{head}public class Item{d}Mapper {{\n    public Item{d}Dto toDto(Item{d}Entity e) {{ return new Item{d}Dto(); }}\n    public Item{d}Entity toEntity(Item{d}Dto d) {{ return new Item{d}Entity(); }}\n"
            )),
        );
        if d > 0 {
            paths.push(',');
        }
        let _ = write!(
            paths,
            r#""/d{d}/items": {{"get": {{"responses": {{"200": {{"description": "ok"}}}}}}, "post": {{"responses": {{"200": {{"description": "ok"}}}}}}}},
               "/d{d}/items/{{id}}": {{"get": {{"parameters": [{{"name": "id", "in": "path", "required": true, "schema": {{"type": "integer"}}}}], "responses": {{"200": {{"description": "ok"}}}}}}}}"#
        );
    }
    std::fs::write(
        root.join("openapi.json"),
        format!(
            r#"{{"openapi": "3.0.1", "info": {{"title": "synthetic", "version": "1"}}, "paths": {{{paths}}}}}"#
        ),
    )
    .expect("spec");
    cites
}

fn cite(domain: usize, file: String, line: usize) -> Cite {
    Cite {
        op: format!("GET /d{domain}/items/{{id}}"),
        file,
        line,
    }
}

/// 1-based line of the first line of `text` containing `needle` after the class line.
fn line_of(text: &str, needle: &str) -> usize {
    let class = text
        .lines()
        .position(|l| l.contains(" class "))
        .unwrap_or(0);
    text.lines()
        .enumerate()
        .skip(class + 1)
        .find(|(_, l)| l.contains(needle))
        .map_or(0, |(i, _)| i + 1)
}

/// Helper methods no operation reaches, as real classes have, then the closing brace.
fn pad(mut s: String) -> String {
    for i in 0..PAD_METHODS {
        let _ = write!(
            s,
            "\n    /** Helper number {i}. */\n    private int helper{i}(int a, int b) {{\n        int c = a * {i} + b;\n        if (c > 100) {{ return c - 100; }}\n        return c;\n    }}\n"
        );
    }
    s.push_str("}\n");
    s
}
