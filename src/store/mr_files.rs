//! Where a session keeps its metamorphic tests: one `metamorphic/<test_id>.json` per test
//! (review id `mr#<test_id>`). Here, below the suite reader and the metamorphic loop,
//! because both read them.

use crate::model::MetamorphicTest;
use crate::store::{Session, StoreError};

/// Directory of the tests inside the session.
pub const DIR: &str = "metamorphic";
/// File name of a test: its id with anything but letters, digits, `-` and `_` as `_`,
/// capped in length, plus a hash of the exact id (`store::id_file_stem`), so `x/y` and
/// `x_y` keep their own files and a very long id still fits the file system.
pub fn file_rel(test_id: &str) -> String {
    format!("{DIR}/{}.json", crate::store::id_file_stem(test_id))
}

/// The tests kept in the session, sorted by id. Sessions written before file names
/// carried a hash may hold a test under its old name too: one copy per id is kept,
/// preferring the file at the current name.
pub fn load_tests(session: &Session) -> Result<Vec<MetamorphicTest>, StoreError> {
    let mut tests: std::collections::BTreeMap<String, MetamorphicTest> = Default::default();
    for name in session.list(DIR)? {
        if !name.ends_with(".json") {
            continue;
        }
        let rel = format!("{DIR}/{name}");
        if let Some(t) = session.read_json::<MetamorphicTest>(&rel)? {
            let current = rel == file_rel(&t.test_id);
            if current || !tests.contains_key(&t.test_id) {
                tests.insert(t.test_id.clone(), t);
            }
        }
    }
    Ok(tests.into_values().collect())
}
