//! Run a scenario given as a JSON file and print its summary: `cargo run --example smoke FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: smoke FILE.json");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let t = std::time::Instant::now();
    match transim_core::run_value(v) {
        Ok(out) => {
            println!("{}", serde_json::to_string_pretty(&out.result).unwrap());
            eprintln!("wall {:?}", t.elapsed());
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
