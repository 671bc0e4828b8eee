//! The instruction-semantics proof: every case from
//! `ppu_cpu::conformance::all_cases` runs under qemu-ppc64 (the expected
//! state, cached under the target directory) and through the interpreter;
//! every difference is reported.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ppu_cpu::conformance::{self, Case};
use ppu_cpu::helpers::{fpu, vmx};

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ppu-conformance")
}

#[test]
fn interpreter_matches_qemu() {
    let cases = conformance::all_cases();
    let want = conformance::expected_states(&cases, &cache_dir()).unwrap_or_else(|e| panic!("{e}"));
    // The fast paths (FPU, VMX SIMD) and the references must both match.
    for (f, v) in [
        (fpu::Impl::Fast, vmx::Impl::Fast),
        (fpu::Impl::Reference, vmx::Impl::Reference),
    ] {
        fpu::set_impl(f);
        vmx::set_impl(v);
        check(&cases, &want, &format!("FPU {f:?}, VMX {v:?}"));
    }
}

fn check(cases: &[Case], want: &[conformance::State], label: &str) {
    let mem = conformance::harness_memory(cases.len());
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut per_op: BTreeMap<String, usize> = BTreeMap::new();
    for (n, (case, want)) in cases.iter().zip(want).enumerate() {
        *per_op.entry(format!("{:?}", case.op)).or_default() += 1;
        let got = match conformance::run_interpreter(&mem, n, case) {
            Ok(s) => s,
            Err(stop) => {
                failures
                    .entry(format!("{:?}", case.op))
                    .or_default()
                    .push(format!("case {n} `{}`: stopped: {stop}", case.name));
                continue;
            }
        };
        let d = conformance::diff(want, &got, &case.ignore);
        if !d.is_empty() {
            failures
                .entry(format!("{:?}", case.op))
                .or_default()
                .push(format!(
                    "case {n} `{}` (words {:08x?}):\n      {}",
                    case.name,
                    case.words,
                    d.join("\n      ")
                ));
        }
    }
    let ops = per_op.len();
    if !failures.is_empty() {
        let mut msg = format!(
            "[FPU {label}] {} of {} ops differ from qemu:\n",
            failures.len(),
            ops
        );
        for (op, f) in &failures {
            msg.push_str(&format!(
                "  {op}: {} of {} cases, e.g.\n    {}\n",
                f.len(),
                per_op[op],
                f.iter()
                    .take(if std::env::var_os("PPU_CONFORMANCE_ALL").is_some() {
                        usize::MAX
                    } else {
                        2
                    })
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n    ")
            ));
        }
        panic!("{msg}");
    }
    assert!(ops > 300, "only {ops} ops covered");
}
