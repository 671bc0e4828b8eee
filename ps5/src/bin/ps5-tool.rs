//! `ps5-tool`: host-side tools for the PS5 payload.
//!
//! ```text
//! ps5-tool nid NAME...              the NID of each symbol name
//! ps5-tool imports [ELF] [--update] the payload's imports (module, NID, kind, name);
//!                                   --update writes them to ps5/imports.txt
//! ps5-tool stubs OUT_DIR            stub library sources from ps5/sysmap.txt
//! ps5-tool title-id PARAM_JSON      the titleId of a param.json
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

use ps5::imports;
use ps5::nid::Nid;
use ps5::sysmap::SymbolMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: ps5-tool nid NAME...
       ps5-tool imports [ELF] [--update]
       ps5-tool stubs OUT_DIR
       ps5-tool title-id PARAM_JSON

  nid NAME...        print the NID (the name the console's libraries export a
                     symbol under) of each symbol name
  imports [ELF]      list every import of the payload (default: the one ./x ps5
                     built) with its module, NID and kind; --update writes the
                     list to ps5/imports.txt, which a test compares with the payload
  stubs OUT_DIR      write the stub libraries' sources (from ps5/sysmap.txt) to
                     OUT_DIR; ps5/build.sh compiles them
  title-id FILE      print the titleId of a param.json (ps5/build.sh embeds it)
";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The payload `./x ps5` builds: `<target dir>/ps5/cellport-ps5.elf`.
fn default_payload() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_dir().join("../target"));
    target.join("ps5/cellport-ps5.elf")
}

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("nid") => {
            if args.len() < 2 {
                return Err("nid needs at least one symbol name".into());
            }
            let mut text = String::new();
            for name in &args[1..] {
                text.push_str(&format!("{}  {name}\n", Nid::of(name.as_bytes())));
            }
            print_out(&text);
            Ok(())
        }
        Some("imports") => {
            let update = args.iter().any(|a| a == "--update");
            let files: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with("--")).collect();
            if let Some(bad) = args[1..]
                .iter()
                .find(|a| a.starts_with("--") && *a != "--update")
            {
                return Err(format!("unknown option {bad}"));
            }
            let path = files.first().map_or_else(default_payload, PathBuf::from);
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("{}: {e} (build the payload with ./x ps5)", path.display()))?;
            let list =
                imports::imports_of(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            let text = imports::format_list(&list);
            if update {
                let out = crate_dir().join("imports.txt");
                std::fs::write(&out, &text).map_err(|e| format!("{}: {e}", out.display()))?;
                eprintln!("wrote {} imports to {}", list.len(), out.display());
            } else {
                print_out(&text);
            }
            Ok(())
        }
        Some("stubs") => {
            let out = args.get(1).ok_or("stubs needs an output folder")?;
            write_stubs(Path::new(out))
        }
        Some("title-id") => {
            let path = Path::new(args.get(1).ok_or("title-id needs a param.json")?);
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let decl = ps5::param_json::parse(path, &text).map_err(|e| e.to_string())?;
            println!("{}", decl.title_id);
            Ok(())
        }
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command {other:?}\n{USAGE}")),
        None => Err(USAGE.to_string()),
    }
}

/// Writes, per module of the symbol map, `<stem>.rs` and `<stem>.ver`, a
/// `lib<name>.so` linker script per `-l` alias, and `modules.txt` listing
/// the stems.
fn write_stubs(out: &Path) -> Result<(), String> {
    let map_path = crate_dir().join("sysmap.txt");
    let text =
        std::fs::read_to_string(&map_path).map_err(|e| format!("{}: {e}", map_path.display()))?;
    let map = SymbolMap::parse(&text).map_err(|e| format!("{}: {e}", map_path.display()))?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: String, body: String| -> Result<(), String> {
        let p = out.join(name);
        std::fs::write(&p, body).map_err(|e| format!("{}: {e}", p.display()))
    };
    let mut stems = String::new();
    for m in &map.modules {
        write(format!("{}.rs", m.stem()), map.stub_source(m))?;
        write(format!("{}.ver", m.stem()), map.stub_version_script(m))?;
        stems.push_str(&format!("{} {}\n", m.stem(), m.soname));
    }
    for a in &map.aliases {
        write(format!("lib{}.so", a.lib), map.alias_script(a))?;
    }
    write("modules.txt".into(), stems)
}

/// Prints to standard output; a closed pipe (`| head`) is not an error.
fn print_out(text: &str) {
    use std::io::Write as _;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ps5-tool: {e}");
            ExitCode::FAILURE
        }
    }
}
