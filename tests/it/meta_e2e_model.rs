//! One metamorphic iteration with a real model (the local llama.cpp server) against the
//! live fixture: the iteration completes and every candidate is kept, grouped with an
//! earlier one, or dropped with a reason.
//!
//! Run with: `MASTOR_E2E_BASE_URL=$(scripts/local-llm.sh start | tail -n1)
//! cargo test --test meta_e2e_model -- --ignored`

use crate::runner_support;

use mastor::agents::metamorphic::{Grounding, ModelAgents, spec_text};
use mastor::llm::{CacheMode, LlmClient, LlmConfig, Provider};
use mastor::metamorphic::check::SpecView;
use mastor::metamorphic::iterate::{LoopConfig, StopCriteria, run_loop};
use mastor::prompts::Prompts;
use mastor::runner::RunConfig;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the local model: scripts/local-llm.sh start"]
async fn one_iteration_with_a_real_model_accounts_for_every_candidate() {
    let base_url = std::env::var("MASTOR_E2E_BASE_URL")
        .expect("set MASTOR_E2E_BASE_URL to the base URL printed by scripts/local-llm.sh start");
    let mut cfg = LlmConfig::for_base_url(Provider::Llamacpp, base_url.trim(), "smollm2");
    cfg.cache = CacheMode::Off;
    cfg.timeout = Duration::from_secs(600);
    cfg.max_attempts = 2;
    let spec = mastor::spec::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/petstore-jdk/openapi.json"),
    )
    .expect("spec");
    let agents = ModelAgents {
        client: LlmClient::new(cfg).expect("client"),
        prompts: Arc::new(Prompts::embedded()),
        session: None,
        spec_text: spec_text(&spec.operations),
        grounding: Grounding::default(),
    };
    // Its own fixture API: the metamorphic tests' seeds write to it.
    let fixture = runner_support::private_fixture();
    let loop_cfg = LoopConfig {
        criteria: StopCriteria {
            max_iterations: 1,
            ..StopCriteria::default()
        },
        batch: 2,
        run: RunConfig {
            base_url: fixture.url().to_string(),
            ..RunConfig::default()
        },
    };
    let report = run_loop(&agents, &SpecView::new(&spec.operations), &loop_cfg).await;
    assert_eq!(report.iterations.len(), 1);
    let it = &report.iterations[0];
    assert!(it.error.is_none(), "{:?}", it.error);
    assert_eq!(
        it.candidates,
        it.new_tests.len() + it.duplicates.len() + it.dropped.len(),
        "{it:#?}"
    );
    assert!(
        it.dropped.iter().all(|d| !d.reason.trim().is_empty()),
        "{it:#?}"
    );
    assert_eq!(report.verdicts.len(), report.tests.len());
}
