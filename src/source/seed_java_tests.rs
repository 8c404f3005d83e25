//! Each start-up form that creates records, found in a small Java file.

use super::seed_java::{JavaSeedKind, find, find_all, render};

fn kinds(text: &str) -> Vec<(JavaSeedKind, String, usize)> {
    find("A.java", text)
        .into_iter()
        .map(|s| (s.kind, s.name, s.line))
        .collect()
}

#[test]
fn a_store_constructor_that_adds_records() {
    let text = r#"class EventStore {
    private final Map<Long, Venue> venues = new HashMap<>();
    EventStore() {
        venues.put(1L, new Venue(1, "Main Hall", 300));
        Venue v = new Venue(2, "Annex", 40);
        venues.put(v.id(), v);
    }
    void add(Venue v) { venues.put(v.id(), v); }
}"#;
    let seeds = find("src/EventStore.java", text);
    assert_eq!(seeds.len(), 1, "{seeds:?}");
    let s = &seeds[0];
    assert_eq!(
        (s.kind, s.line, s.end_line),
        (JavaSeedKind::Constructor, 3, 7)
    );
    assert_eq!(s.name, "EventStore.EventStore");
    assert!(s.text.contains("\"Main Hall\""), "{}", s.text);
}

#[test]
fn a_constructor_that_only_wires_things_is_not_seed_data() {
    let text = r#"class Handler {
    private final Map<String, Runnable> routes = new HashMap<>();
    private final Store store;
    Handler(Store store) {
        this.store = store;
        routes.put("/pets", this::pets);
        init();
    }
    private void init() { log("ready"); }
}"#;
    let found = kinds(text);
    // `init` is seed-named and called from the constructor, so it is offered; the
    // constructor itself (one literal route) is not.
    assert_eq!(
        found,
        vec![(
            JavaSeedKind::CalledFromConstructor,
            "Handler.init".to_string(),
            9
        )]
    );
}

#[test]
fn a_seed_method_called_from_the_constructor() {
    let text = r#"public class Repo {
    public Repo() {
        seed();
    }

    private void seed() {
        Venue hall = new Venue("Hall", 100);
        venues.add(hall);
    }

    private void helper() { venues.add(new Venue("x", 1)); }
}"#;
    assert_eq!(
        kinds(text),
        vec![(
            JavaSeedKind::CalledFromConstructor,
            "Repo.seed".to_string(),
            6
        )]
    );
}

#[test]
fn post_construct_methods() {
    let text = r#"@Service
class Loader {
    @PostConstruct
    void fill() {
        repo.save(new User("ann", "ann@example.com"));
    }
}"#;
    let found = kinds(text);
    assert_eq!(
        found,
        vec![(JavaSeedKind::PostConstruct, "Loader.fill".to_string(), 3)]
    );
}

#[test]
fn command_line_and_application_runners() {
    let text = r#"@Component
class Seeder implements CommandLineRunner {
    @Override
    public void run(String... args) {
        orders.save(new Order(1, "pending"));
    }
}
@Configuration
class App {
    @Bean
    ApplicationRunner demo(OrderRepo repo) {
        return args -> repo.save(new Order(2, "paid"));
    }
    @Bean
    ObjectMapper mapper() { return new ObjectMapper(); }
}"#;
    assert_eq!(
        kinds(text),
        vec![
            (JavaSeedKind::Runner, "Seeder.run".to_string(), 3),
            (JavaSeedKind::RunnerBean, "App.demo".to_string(), 10),
        ]
    );
}

#[test]
fn static_initialisers_and_static_collections() {
    let text = r#"final class Data {
    static final Map<String, Integer> STOCK = Map.of("apple", 3, "pear", 0);
    static final List<String> EMPTY = List.of();
    static final int LIMIT = 10;
    final List<String> notStatic = List.of("a", "b");
    static final Map<Long, Item> ITEMS = new HashMap<>();
    static {
        ITEMS.put(1L, new Item(1, "Widget"));
    }
    static final Map<String, String> NAMES = new HashMap<>() {{ put("a", "Ann"); }};
    static { System.loadLibrary("z"); }
    static List<Item> ALL = Arrays.asList(new Item(2, "Gadget"));
}"#;
    assert_eq!(
        kinds(text),
        vec![
            (JavaSeedKind::StaticField, "Data.STOCK".to_string(), 2),
            (
                JavaSeedKind::StaticInitializer,
                "Data.<static>".to_string(),
                7
            ),
            (JavaSeedKind::StaticField, "Data.NAMES".to_string(), 10),
            (JavaSeedKind::StaticField, "Data.ALL".to_string(), 12),
        ]
    );
}

#[test]
fn nested_types_and_enums_are_searched() {
    let text = r#"class Outer {
    static class Store {
        Store() { add("Rex", "dog"); }
    }
    enum Kind {
        A, B;
        static final Set<String> NAMES = Set.of("a", "b");
    }
}"#;
    assert_eq!(
        kinds(text),
        vec![
            (JavaSeedKind::Constructor, "Store.Store".to_string(), 3),
            (JavaSeedKind::StaticField, "Kind.NAMES".to_string(), 7),
        ]
    );
}

#[test]
fn files_without_any_hint_are_not_parsed_and_order_is_kept() {
    let a = "class A { static { m.put(\"k\", new V(1, \"x\")); } }";
    let b = "class B { int x() { return 1; } }";
    let seeds = find_all(&[("b/B.java", b), ("a/A.java", a)]);
    assert_eq!(seeds.len(), 1);
    assert_eq!(seeds[0].file, "a/A.java");
}

#[test]
fn rendering_prefers_the_bundle_heads_each_snippet_and_names_what_was_cut() {
    let a = "class A {\n    static final List<String> L = List.of(\"a\", \"b\");\n}";
    let mut big = String::from("class B {\n    B() {\n");
    for i in 0..200 {
        big.push_str(&format!("        add(\"pet{i}\", \"dog\");\n"));
    }
    big.push_str("    }\n}\n");
    let c = "class C {\n    static final Set<String> S = Set.of(\"c\", \"d\");\n}";
    let seeds = find_all(&[("A.java", a), ("B.java", &big), ("C.java", c)]);
    assert_eq!(seeds.len(), 3);

    let all = render(&seeds, &[], 100_000);
    assert!(all.starts_with("// ----- A.java:2 (static collection: A.L) -----\n"));
    assert!(all.contains("// ----- B.java:2 (constructor: B.B) -----\n    B() {"));
    assert!(!all.contains("left out"), "{all}");

    let preferred = render(&seeds, &["C.java".to_string()], 100_000);
    assert!(preferred.starts_with("// ----- C.java:2"), "{preferred}");

    let capped = render(&seeds, &[], 1_000);
    assert!(capped.len() <= 1_000 + 120, "{}", capped.len());
    assert!(capped.contains("// ----- A.java:2"), "{capped}");
    assert!(capped.contains("(cut: lines"), "{capped}");
    assert!(capped.contains("of B.java left out"), "{capped}");
    assert!(
        capped.contains("(left out, seed data is capped: C.java:2)"),
        "{capped}"
    );
}
