use super::*;

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn write(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("config.toml");
    std::fs::write(&p, text).unwrap();
    p
}

const FILE: &str = r#"
[llm]
concurrency = 3
[llm.primary]
provider = "qwen"
base_url = "http://file.example/v1"
model = "file-model"
api_key_env = "FILE_KEY"
"#;

#[test]
fn precedence_flags_over_env_over_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), FILE);
    let args = LlmArgs::default();

    let c = LlmConfig::resolve(Some(&path), &env(&[("FILE_KEY", "k-file-000000")]), &args).unwrap();
    assert_eq!(c.primary.model, "file-model");
    assert_eq!(c.primary.base_url, "http://file.example/v1");
    assert_eq!(c.primary.provider, Provider::Qwen);
    assert_eq!(
        c.primary.api_key.as_ref().unwrap().expose(),
        "k-file-000000"
    );
    assert_eq!(c.concurrency, 3);

    let e = env(&[
        ("MASTOR_MODEL", "env-model"),
        ("MASTOR_BASE_URL", "http://env.example/v1/"),
        ("MASTOR_PROVIDER", "vllm"),
        ("MASTOR_API_KEY", "k-env-1111111"),
        ("FILE_KEY", "k-file-000000"),
    ]);
    let c = LlmConfig::resolve(Some(&path), &e, &args).unwrap();
    assert_eq!(c.primary.model, "env-model");
    assert_eq!(c.primary.base_url, "http://env.example/v1");
    assert_eq!(c.primary.provider, Provider::Vllm);
    assert_eq!(
        c.primary.api_key.as_ref().unwrap().expose(),
        "k-env-1111111"
    );

    let flags = LlmArgs {
        model: Some("flag-model".into()),
        base_url: Some("http://flag.example/v1".into()),
        provider: Some(Provider::Llamacpp),
        api_key_env: Some("OTHER".into()),
        concurrency: Some(9),
        ..LlmArgs::default()
    };
    let mut e2 = e.clone();
    e2.insert("OTHER".into(), "k-flag-2222222".into());
    let c = LlmConfig::resolve(Some(&path), &e2, &flags).unwrap();
    assert_eq!(c.primary.model, "flag-model");
    assert_eq!(c.primary.base_url, "http://flag.example/v1");
    assert_eq!(c.primary.provider, Provider::Llamacpp);
    assert_eq!(
        c.primary.api_key.as_ref().unwrap().expose(),
        "k-flag-2222222"
    );
    assert_eq!(c.concurrency, 9);
}

#[test]
fn challenger_defaults_to_primary() {
    let e = env(&[
        ("MASTOR_BASE_URL", "http://p.example/v1"),
        ("MASTOR_PROVIDER", "openai"),
        ("MASTOR_MODEL", "m1"),
        ("MASTOR_API_KEY", "sk-primary-99999"),
    ]);
    let c = LlmConfig::resolve(Some(Path::new("/nonexistent-ok")), &e, &LlmArgs::default());
    assert!(
        matches!(c, Err(ConfigError::Read { .. })),
        "named missing file fails"
    );
    let mut e = e;
    e.insert("XDG_CONFIG_HOME".into(), "/nonexistent-xdg".into());
    let c = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap();
    assert_eq!(c.challenger.base_url, "http://p.example/v1");
    assert_eq!(c.challenger.model, "m1");
    assert_eq!(
        c.challenger.api_key.as_ref().unwrap().expose(),
        "sk-primary-99999"
    );

    e.insert("MASTOR_CHALLENGER_MODEL".into(), "m2".into());
    e.insert("MASTOR_CHALLENGER_PROVIDER".into(), "deepseek".into());
    let c = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap();
    assert_eq!(c.challenger.model, "m2");
    assert_eq!(c.challenger.provider, Provider::Deepseek);
    assert_eq!(c.challenger.base_url, "https://api.deepseek.com/v1");
    assert!(
        c.challenger.api_key.is_none(),
        "other provider, no key of its own"
    );
}

#[test]
fn mastor_config_env_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), FILE);
    let e = env(&[("MASTOR_CONFIG", path.to_str().unwrap())]);
    let c = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap();
    assert_eq!(c.source_file.as_deref(), Some(path.as_path()));
    assert_eq!(c.primary.model, "file-model");
}

#[test]
fn xdg_config_home_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("mastor")).unwrap();
    std::fs::write(dir.path().join("mastor/config.toml"), FILE).unwrap();
    let e = env(&[("XDG_CONFIG_HOME", dir.path().to_str().unwrap())]);
    let c = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap();
    assert_eq!(c.primary.model, "file-model");
}

#[test]
fn key_file_is_read_and_masked_in_render() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    std::fs::write(&key, "sk-test-SECRET123wxyz\n").unwrap();
    let text = format!(
        "[llm.primary]\nprovider = \"deepseek\"\napi_key_file = \"{}\"\n",
        key.display()
    );
    let path = write(dir.path(), &text);
    let c = LlmConfig::resolve(Some(&path), &env(&[]), &LlmArgs::default()).unwrap();
    assert_eq!(
        c.primary.api_key.as_ref().unwrap().expose(),
        "sk-test-SECRET123wxyz"
    );
    let shown = c.render();
    assert!(!shown.contains("SECRET123"), "{shown}");
    assert!(shown.contains("sk-…wxyz"), "{shown}");
    assert!(!format!("{c:?}").contains("SECRET123"));
}

#[test]
fn missing_key_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "[llm.primary]\napi_key_file = \"/no/such/key\"\n",
    );
    let err = LlmConfig::resolve(Some(&path), &env(&[]), &LlmArgs::default()).unwrap_err();
    assert!(err.to_string().contains("/no/such/key"), "{err}");
}

#[test]
fn custom_provider_needs_a_base_url() {
    let e = env(&[
        ("MASTOR_PROVIDER", "custom"),
        ("XDG_CONFIG_HOME", "/nonexistent-xdg"),
    ]);
    let err = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap_err();
    assert!(
        matches!(err, ConfigError::NoBaseUrl { role: "primary" }),
        "{err}"
    );
    let e = env(&[
        ("MASTOR_PROVIDER", "bogus"),
        ("XDG_CONFIG_HOME", "/nonexistent-xdg"),
    ]);
    let err = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap_err();
    assert!(err.to_string().contains("MASTOR_PROVIDER"), "{err}");
}

#[test]
fn cache_flags() {
    let e = env(&[("XDG_CONFIG_HOME", "/nonexistent-xdg")]);
    let no = LlmArgs {
        no_cache: true,
        ..LlmArgs::default()
    };
    assert_eq!(
        LlmConfig::resolve(None, &e, &no).unwrap().cache,
        CacheMode::Off
    );
    let re = LlmArgs {
        refresh: true,
        ..LlmArgs::default()
    };
    assert_eq!(
        LlmConfig::resolve(None, &e, &re).unwrap().cache,
        CacheMode::Refresh
    );
}

#[test]
fn response_and_retry_after_limits() {
    let dir = tempfile::tempdir().unwrap();
    let none = LlmConfig::resolve(None, &env(&[]), &LlmArgs::default()).unwrap();
    assert_eq!(none.max_response_bytes, DEFAULT_MAX_RESPONSE_BYTES);
    assert_eq!(none.max_retry_after, Duration::from_secs(60));

    let path = write(
        dir.path(),
        "[llm]\nmax_response_bytes = 2048\nmax_retry_after_secs = 5\n",
    );
    let c = LlmConfig::resolve(Some(&path), &env(&[]), &LlmArgs::default()).unwrap();
    assert_eq!(c.max_response_bytes, 2048);
    assert_eq!(c.max_retry_after, Duration::from_secs(5));
    assert!(c.render().contains("max_response_bytes = 2048"));
    assert!(c.render().contains("max_retry_after_secs = 5"));

    let args = LlmArgs {
        max_response_bytes: Some(1 << 20),
        max_retry_after: Some(0),
        ..LlmArgs::default()
    };
    let c = LlmConfig::resolve(Some(&path), &env(&[]), &args).unwrap();
    assert_eq!(c.max_response_bytes, 1 << 20);
    assert_eq!(c.max_retry_after, Duration::ZERO);

    let tiny = LlmArgs {
        max_response_bytes: Some(10),
        ..LlmArgs::default()
    };
    let err = LlmConfig::resolve(None, &env(&[]), &tiny).unwrap_err();
    assert!(err.to_string().contains("max_response_bytes"), "{err}");
}

/// ARMeta gives each layer its own model: the generator falls back to the primary, the
/// refiner to the challenger, and each is set by file, environment or flags.
#[test]
fn armeta_layers_have_their_own_roles() {
    let mut e = env(&[
        ("MASTOR_BASE_URL", "http://p.example/v1"),
        ("MASTOR_PROVIDER", "openai"),
        ("MASTOR_MODEL", "m-primary"),
        ("MASTOR_CHALLENGER_MODEL", "m-challenger"),
        ("XDG_CONFIG_HOME", "/nonexistent-xdg"),
    ]);
    let c = LlmConfig::resolve(None, &e, &LlmArgs::default()).unwrap();
    assert_eq!(c.role(Role::Generator).model, "m-primary");
    assert_eq!(c.role(Role::Refiner).model, "m-challenger");

    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "[llm.generator]\nmodel = \"file-gen\"\n[llm.refiner]\nbase_url = \"http://r.example/v1\"\n",
    );
    let c = LlmConfig::resolve(Some(&path), &e, &LlmArgs::default()).unwrap();
    assert_eq!(c.generator.model, "file-gen");
    assert_eq!(c.refiner.base_url, "http://r.example/v1");
    assert_eq!(c.refiner.model, "m-challenger");

    e.insert("MASTOR_GENERATOR_MODEL".into(), "env-gen".into());
    let args = LlmArgs {
        layers: LayerArgs {
            refiner_model: Some("flag-ref".into()),
            ..LayerArgs::default()
        },
        ..LlmArgs::default()
    };
    let c = LlmConfig::resolve(Some(&path), &e, &args).unwrap();
    assert_eq!(c.generator.model, "env-gen", "env over file");
    assert_eq!(c.refiner.model, "flag-ref", "flag over everything");
    let shown = c.render();
    assert!(shown.contains("[llm.generator]") && shown.contains("[llm.refiner]"));

    let bad = write(dir.path(), "[llm.refiner]\nmodle = \"x\"\n");
    assert!(LlmConfig::resolve(Some(&bad), &e, &LlmArgs::default()).is_err());
}
