//! The README's table of simulated results is what `fg-pace` generates now.

use framegen_pacer::table;

#[test]
fn readme_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let committed = table::section(&doc).expect("README.md lost its table markers");
    let fresh = table::render(&table::scenarios()).unwrap();
    assert!(
        committed == fresh,
        "README.md's table is stale: run `./x fg pace --write-table framegen/pacer/README.md`\n\
         committed:\n{committed}\nfresh:\n{fresh}"
    );
}
