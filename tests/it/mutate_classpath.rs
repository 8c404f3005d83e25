//! The `javac` fast path for projects whose dependencies are jars: `mastor mutate
//! --classpath` on the Spring fixture compiles the original once against the jars and
//! each mutant's one changed file against the original classes plus the jars, with the
//! same hand-checked outcomes as the whole-copy `--build` run of `framework_spring`; a
//! project's own `lib/` is found without the flag; bad class paths and a Maven project
//! without one are input errors. Needs the Debian jars of scripts/setup.sh.

use crate::framework_support::{diff_touching, outcomes, project, subset, write_json};
use crate::runner_support::mastor;
use crate::support::read_json;
use std::path::{Path, PathBuf};
use std::process::Command;

const PRODUCT_SERVICE: &str = "src/main/java/shop/service/ProductService.java";
const ADVICE: &str = "src/main/java/shop/web/ApiErrorAdvice.java";

/// The Spring fixture's dependencies as `--classpath`: its one-class CGLIB/ASM shim
/// (compiled here into `dir`, first, see the fixture's README) and the Debian jars it
/// lists in jars.txt.
fn spring_classpath(dir: &Path) -> String {
    let fixture = project("shop-spring-run");
    let jars: Vec<String> = std::fs::read_to_string(fixture.join("jars.txt"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|j| format!("/usr/share/java/{j}"))
        .collect();
    for j in &jars {
        assert!(Path::new(j).is_file(), "{j} missing: run scripts/setup.sh");
    }
    let shim = dir.join("shim");
    let status = Command::new("javac")
        .args(["-nowarn", "-d"])
        .arg(&shim)
        .args(["-cp", &jars.join(":")])
        .arg(fixture.join("support/asm-shim/org/springframework/cglib/core/AsmApi.java"))
        .status()
        .unwrap();
    assert!(status.success(), "the shim compiles");
    format!("{}:{}", shim.display(), jars.join(":"))
}

const SPRING_START: &str = "exec java --add-opens java.base/java.lang=ALL-UNNAMED \
     -XX:TieredStopAtLevel=1 -cp {classpath} shop.ShopApplication {port}";

#[test]
fn spring_mutants_build_by_javac_against_the_classpath_with_hand_checked_outcomes() {
    let tmp = tempfile::tempdir().unwrap();
    let classpath = spring_classpath(tmp.path());
    let suite = write_json(
        &tmp.path().join("suite.json"),
        &subset(
            "shop-spring-run",
            &["fv_get_dune", "fi_get_missing", "fi_pay_shipped"],
        ),
    );
    // The lines of framework_spring's --build run, so both paths must agree:
    // ProductService.java:50 `throw new NotFoundException(..)` in get(), removed: Spring
    // answers 200 with no body and fi_get_missing (404) kills it; :60
    // `messages.add(..)` in validation: no oracle of this suite creates a product, so it
    // survives; ApiErrorAdvice.java:24/:39 status swaps: no bundle holds the advice, so
    // they are not covered.
    let diff = diff_touching(
        &tmp.path().join("change.diff"),
        &[
            (PRODUCT_SERVICE, 50),
            (PRODUCT_SERVICE, 60),
            (ADVICE, 24),
            (ADVICE, 39),
        ],
    );
    let out = tmp.path().join("out");
    let fixture = project("shop-spring-run");
    let args = [
        "mutate",
        suite.to_str().unwrap(),
        "--project",
        fixture.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--in-diff",
        diff.to_str().unwrap(),
        "--operator",
        "remove_throw,remove_field_write,status_swap",
        "--files",
        "src/main/java/shop/**/*.java",
        "--jobs",
        "2",
        "--classpath",
        &classpath,
        "--start",
        SPRING_START,
    ];
    let (code, stdout, stderr) = mastor(&args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let matrix = read_json(&out.join("matrix.json"));
    let mut expected = vec![
        (format!("{PRODUCT_SERVICE}:50"), "remove_throw", "caught"),
        (
            format!("{PRODUCT_SERVICE}:60"),
            "remove_field_write",
            "missed",
        ),
        (format!("{ADVICE}:24"), "status_swap", "not_covered"),
        (format!("{ADVICE}:39"), "status_swap", "not_covered"),
    ]
    .into_iter()
    .map(|(f, o, s)| (f, o.to_string(), s.to_string()))
    .collect::<Vec<_>>();
    expected.sort();
    assert_eq!(outcomes(&out, &matrix), expected, "{matrix:#}");
    let caught: Vec<_> = matrix["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "caught")
        .collect();
    assert_eq!(caught.len(), 1, "{matrix:#}");
    assert_eq!(
        caught[0]["killed_by"][0]["o_id"],
        "GET /api/products/{id}#fi_get_missing"
    );
    let summary = read_json(&out.join("summary.json"));
    assert_eq!(summary["total"]["score"], 0.5, "{summary:#}");
    assert!(stdout.contains("mutation score 50.0%"), "{stdout}");

    // The fast path, not a copy: the original compiled once, each built mutant holds
    // its one changed class and no copy of the project.
    let work = out.join("work");
    assert!(
        work.join("original/classes/shop/ShopApplication.class")
            .is_file()
    );
    let id = caught[0]["id"].as_str().unwrap();
    let mutant = work.join("mutants").join(id);
    assert!(
        mutant
            .join("classes/shop/service/ProductService.class")
            .is_file()
    );
    assert!(!mutant.join("classes/shop/ShopApplication.class").exists());
    assert!(!mutant.join("project").exists(), "no copy of the project");

    // The stored options replay the class path (a regeneration round reuses them).
    let options = read_json(&out.join("options.json"));
    assert_eq!(options["classpath"], classpath.as_str());

    // The same inputs again reuse everything; another class path is another build.
    let (code, stdout, _) = mastor(&args);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("ran 0 mutant(s), reused 2 (baseline reused)"),
        "{stdout}"
    );
}

/// A JDK project whose one dependency is `lib/greeting.jar`: `Main` answers
/// `Greeting.text()` on `/`.
fn project_with_lib(root: &Path) -> PathBuf {
    let dep = root.join("dep");
    std::fs::create_dir_all(dep.join("src/greet")).unwrap();
    std::fs::write(
        dep.join("src/greet/Greeting.java"),
        "package greet;\npublic class Greeting {\n    public static String text() { return \"hi\"; }\n}\n",
    )
    .unwrap();
    let ok = Command::new("javac")
        .arg("-d")
        .arg(dep.join("classes"))
        .arg(dep.join("src/greet/Greeting.java"))
        .status()
        .unwrap();
    assert!(ok.success());
    let project = root.join("app");
    std::fs::create_dir_all(project.join("lib")).unwrap();
    std::fs::create_dir_all(project.join("src/main/java/app")).unwrap();
    let ok = Command::new("jar")
        .arg("cf")
        .arg(project.join("lib/greeting.jar"))
        .arg("-C")
        .arg(dep.join("classes"))
        .arg(".")
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::write(
        project.join("src/main/java/app/Main.java"),
        "package app;\n\
         public class Main {\n\
         \x20   public static int status() { return greet.Greeting.text().isEmpty() ? 500 : 200; }\n\
         \x20   public static void main(String[] args) throws Exception {\n\
         \x20       String name = Main.class.getMethod(\"main\", String[].class).getParameters()[0].getName();\n\
         \x20       System.out.println(status() + \" \" + name);\n\
         \x20   }\n\
         }\n",
    )
    .unwrap();
    project
}

#[test]
fn a_projects_lib_jars_are_its_classpath_for_the_original_and_each_mutant() {
    use mastor::mutate::build::{BuildOutcome, Workspace};
    use mastor::mutate::{Mutant, Operator};
    let tmp = tempfile::tempdir().unwrap();
    let project = project_with_lib(tmp.path());
    let found = mastor::mutate::classpath::of_project(&project, true)
        .unwrap()
        .expect("lib/ names the class path");
    assert_eq!(found.entries, vec![project.join("lib/greeting.jar")]);

    let file = "src/main/java/app/Main.java";
    let text = std::fs::read_to_string(project.join(file)).unwrap();
    let start = text.find("200").unwrap();
    let mutant = Mutant {
        id: "m200".into(),
        operator: Operator::StatusSwap,
        file: file.into(),
        line: 3,
        column: 1,
        start,
        end: start + 3,
        before: "200".into(),
        after: "201".into(),
        ops: vec![],
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    // Without the jar, nothing compiles: the class path is what makes it build.
    let bare = Workspace::new(
        project.clone(),
        tmp.path().join("bare"),
        Workspace::default_mode(&project).unwrap(),
    );
    let err = rt.block_on(bare.build_original()).unwrap_err().to_string();
    assert!(err.contains("greet"), "{err}");

    let mut ws = Workspace::new(
        project.clone(),
        tmp.path().join("work"),
        Workspace::default_mode(&project).unwrap(),
    );
    ws.classpath = found.entries.clone();
    let original = rt
        .block_on(ws.build_original())
        .expect("compiles with lib/");
    let jar = project.join("lib/greeting.jar").display().to_string();
    assert!(original.classpath.ends_with(&jar), "{}", original.classpath);
    let BuildOutcome::Built(built) = rt.block_on(ws.build_mutant(&mutant, &original)).unwrap()
    else {
        panic!("the mutant compiles against the original classes and the jar");
    };
    let parts: Vec<&str> = built.classpath.split(':').collect();
    assert_eq!(
        parts,
        vec![
            built.dir.join("classes").to_str().unwrap(),
            tmp.path().join("work/original/classes").to_str().unwrap(),
            jar.as_str()
        ]
    );
    // The mutant runs: its class first, the jar found, parameter names kept (`args`,
    // not `arg0`: frameworks resolve a bare @PathVariable by it).
    let out = Command::new("java")
        .args(["-cp", &built.classpath, "app.Main"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "201 args");
}

#[test]
fn a_missing_classpath_entry_and_a_maven_project_without_one_are_input_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = write_json(
        &tmp.path().join("suite.json"),
        &subset("shop-spring-run", &["fv_get_dune"]),
    );
    let fixture = project("shop-spring-run");
    let base = |extra: &[&str]| {
        let out = tmp.path().join("out");
        let mut args = vec![
            "mutate".to_string(),
            suite.to_str().unwrap().into(),
            "--project".into(),
            fixture.to_str().unwrap().into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        mastor(&refs)
    };
    let missing = tmp.path().join("no-such.jar");
    let (code, _, stderr) = base(&["--classpath", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no-such.jar does not exist"), "{stderr}");

    // A copy of the fixture with a pom.xml: Maven builds it, and nothing names its jars.
    let maven = tmp.path().join("maven");
    let ok = Command::new("cp")
        .arg("-r")
        .arg(&fixture)
        .arg(&maven)
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::write(maven.join("pom.xml"), "<project/>\n").unwrap();
    let out = tmp.path().join("out2");
    let (code, _, stderr) = mastor(&[
        "mutate",
        suite.to_str().unwrap(),
        "--project",
        maven.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("built with Maven or Gradle: pass --classpath"),
        "{stderr}"
    );
    assert!(!out.join("runs.jsonl").exists(), "nothing ran");
}
