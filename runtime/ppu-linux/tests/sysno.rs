//! The system call table agrees with the kernel's ppc64 header.

#[test]
fn names_match_the_kernel_header() {
    let path = "/usr/powerpc64-linux-gnu/include/asm/unistd_64.h";
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{path}: {e} (Debian linux-libc-dev-ppc64-cross, pulled in by gcc-powerpc64-linux-gnu)"
        )
    });
    let mut from_header: Vec<(u32, String)> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            (w.next()? == "#define").then_some(())?;
            let name = w.next()?.strip_prefix("__NR_")?;
            let nr: u32 = w.next()?.parse().ok()?;
            Some((nr, name.to_string()))
        })
        .collect();
    from_header.sort();
    let ours: Vec<(u32, String)> = ppu_linux::sysno::NAMES
        .iter()
        .map(|&(n, s)| (n, s.to_string()))
        .collect();
    assert_eq!(ours, from_header);
    assert_eq!(ppu_linux::sysno::name(140), "_llseek");
    assert_eq!(ppu_linux::sysno::name(100_000), "unknown");
}
