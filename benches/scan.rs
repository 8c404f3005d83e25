//! Scan benchmark: generates a synthetic Spring project of about 2,000 files and 250,000
//! lines (the size of the whole MASTOR paper benchmark) and times, in one run:
//! reading the files only, parsing them only (tree-sitter, in parallel), and the full
//! rule-based scan (inventory, parse, entries, closures, routes, matching, bundles).
//! Prints lines per second and peak memory. Run with `cargo bench --bench scan`.

use mastor::source::java::parse_all;
use mastor::source::scan::scan;
use mastor::source::{AnalyseOptions, SpecInfo, analyse_operations};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

const DOMAINS: usize = 250;
const FILES_PER_DOMAIN: usize = 8;
const TARGET_LINES_PER_FILE: usize = 125;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let (files, lines) = generate(root);
    let spec = root.join("openapi.json");
    println!("synthetic project: {files} Java files, {lines} lines, {DOMAINS} controllers");

    let t = Instant::now();
    let inventory = scan(root).expect("scan");
    let read = t.elapsed();

    let t = Instant::now();
    let parsed = parse_all(&inventory.java);
    let parse = t.elapsed();
    assert_eq!(parsed.len(), files, "every generated file parsed");

    let t = Instant::now();
    let loaded = mastor::spec::load(&spec).expect("spec");
    let info = SpecInfo {
        file: "openapi.json".into(),
        version: loaded.version.clone(),
        base_path: loaded.base_path.clone(),
    };
    let analysis = analyse_operations(root, &info, &loaded.operations, &AnalyseOptions::default())
        .expect("analyse");
    let full = t.elapsed();
    let matched = analysis
        .report
        .operations
        .iter()
        .filter(|o| o.entry.is_some())
        .count();

    let secs = |d: std::time::Duration| d.as_secs_f64();
    println!(
        "operations: {} in spec, {matched} matched",
        loaded.operations.len()
    );
    println!(
        "read only : {:>7.3} s  ({:>10.0} lines/s)",
        secs(read),
        lines as f64 / secs(read)
    );
    println!(
        "parse only: {:>7.3} s  ({:>10.0} lines/s)  [read + tree-sitter parse, parallel]",
        secs(read) + secs(parse),
        lines as f64 / (secs(read) + secs(parse))
    );
    println!(
        "full scan : {:>7.3} s  ({:>10.0} lines/s)  = {:.2}x parse-only",
        secs(full),
        lines as f64 / secs(full),
        secs(full) / (secs(read) + secs(parse))
    );
    println!("peak memory (VmHWM): {} MiB", peak_rss_kib() / 1024);
    println!("targets: full scan < 3 s and <= 2x parse-only");
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

const KINDS: [&str; FILES_PER_DOMAIN] = [
    "Controller",
    "Service",
    "Repository",
    "Dto",
    "Entity",
    "Mapper",
    "Validator",
    "NotFoundException",
];

/// Writes the project and its spec; returns (files, lines).
fn generate(root: &Path) -> (usize, usize) {
    let mut total_lines = 0;
    let mut files = 0;
    let mut spec_paths = String::new();
    for d in 0..DOMAINS {
        let pkg = format!("com.synth.d{d}");
        let dir = root.join(format!("src/main/java/com/synth/d{d}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let name = format!("Item{d}");
        let next = (d + 1) % DOMAINS;
        for kind in KINDS {
            let text = java_file(&pkg, &name, kind, next);
            total_lines += text.lines().count();
            files += 1;
            std::fs::write(dir.join(format!("{name}{kind}.java")), text).expect("write");
        }
        if d > 0 {
            spec_paths.push(',');
        }
        let _ = write!(
            spec_paths,
            r#""/api/d{d}/items": {{"get": {{"responses": {{"200": {{"description": "ok"}}}}}},
                "post": {{"responses": {{"201": {{"description": "created"}}}}}}}},
              "/api/d{d}/items/{{id}}": {{"get": {{"parameters": [{{"name": "id", "in": "path", "required": true, "schema": {{"type": "integer"}}}}], "responses": {{"200": {{"description": "ok"}}}}}},
                "delete": {{"parameters": [{{"name": "id", "in": "path", "required": true, "schema": {{"type": "integer"}}}}], "responses": {{"204": {{"description": "gone"}}}}}}}}"#
        );
    }
    let spec = format!(
        r#"{{"openapi": "3.0.1", "info": {{"title": "synthetic", "version": "1"}}, "paths": {{{spec_paths}}}}}"#
    );
    std::fs::write(root.join("openapi.json"), spec).expect("spec");
    (files, total_lines)
}

fn java_file(pkg: &str, name: &str, kind: &str, next: usize) -> String {
    let mut s = format!("package {pkg};\n\nimport java.util.List;\nimport java.util.ArrayList;\n");
    match kind {
        "Controller" => {
            let _ = write!(
                s,
                "import org.springframework.web.bind.annotation.*;\n\n@RestController\n@RequestMapping(\"/api/{}\")\npublic class {name}Controller {{\n    private final {name}Service service = new {name}Service();\n\n    @GetMapping(\"/items\")\n    public List<{name}Dto> list() {{ return service.list(); }}\n\n    @PostMapping(\"/items\")\n    public {name}Dto create(@RequestBody {name}Dto dto) {{ return service.create(dto); }}\n\n    @GetMapping(\"/items/{{id}}\")\n    public {name}Dto get(@PathVariable long id) {{ return service.get(id); }}\n\n    @DeleteMapping(\"/items/{{id}}\")\n    public void delete(@PathVariable long id) {{ service.delete(id); }}\n",
                pkg.rsplit('.').next().unwrap_or("x")
            );
        }
        "Service" => {
            let _ = write!(
                s,
                "import com.synth.d{next}.Item{next}Dto;\n\npublic class {name}Service {{\n    private final {name}Repository repo = new {name}Repository();\n    private final {name}Mapper mapper = new {name}Mapper();\n    private final {name}Validator validator = new {name}Validator();\n    private Item{next}Dto related;\n\n    public List<{name}Dto> list() {{ return new ArrayList<>(); }}\n    public {name}Dto create({name}Dto dto) {{ validator.check(dto); return mapper.toDto(repo.save(mapper.toEntity(dto))); }}\n    public {name}Dto get(long id) {{ {name}Entity e = repo.find(id); if (e == null) throw new {name}NotFoundException(id); return mapper.toDto(e); }}\n    public void delete(long id) {{ repo.delete(id); }}\n"
            );
        }
        "NotFoundException" => {
            let _ = write!(
                s,
                "\npublic class {name}NotFoundException extends RuntimeException {{\n    public {name}NotFoundException(long id) {{ super(\"not found: \" + id); }}\n"
            );
        }
        other => {
            let _ = writeln!(
                s,
                "\npublic class {name}{other} {{\n    private long id;\n    private String name;"
            );
            if other == "Repository" {
                let _ = writeln!(
                    s,
                    "    public {name}Entity save({name}Entity e) {{ return e; }}\n    public {name}Entity find(long id) {{ return null; }}\n    public void delete(long id) {{ }}"
                );
            }
            if other == "Mapper" {
                let _ = writeln!(
                    s,
                    "    public {name}Dto toDto({name}Entity e) {{ return new {name}Dto(); }}\n    public {name}Entity toEntity({name}Dto d) {{ return new {name}Entity(); }}"
                );
            }
            if other == "Validator" {
                let _ = writeln!(
                    s,
                    "    public void check({name}Dto d) {{ if (d == null) throw new IllegalArgumentException(\"null\"); }}"
                );
            }
        }
    }
    let mut i = 0;
    while s.lines().count() < TARGET_LINES_PER_FILE - 6 {
        let _ = write!(
            s,
            "\n    /** Helper number {i}. */\n    private int helper{i}(int a, int b) {{\n        int c = a * {i} + b;\n        if (c > 100) {{ return c - 100; }}\n        return c;\n    }}\n"
        );
        i += 1;
    }
    s.push_str("}\n");
    s
}
