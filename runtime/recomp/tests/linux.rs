//! The Linux personality, seen from a guest program on the interpreter
//! (`recomp run`): argv, envp and the auxiliary vector a Cell gets, files,
//! memory, time, exit status; an unsupported system call is named with its
//! number, name and guest PC; a malformed executable is refused with its
//! offset.

use std::path::{Path, PathBuf};
use std::process::Command;

const RECOMP: &str = env!("CARGO_BIN_EXE_recomp");

const PROBE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/syscall.h>

int main(int argc, char **argv) {
    printf("argc=%d", argc);
    for (int i = 1; i < argc; i++) printf(" [%s]", argv[i]);
    printf("\nenv=%s\n", getenv("PROBE_VAR") ? getenv("PROBE_VAR") : "(none)");
    printf("hwcap=%#lx hwcap2=%#lx dcache=%lu icache=%lu pagesz=%lu\n", getauxval(AT_HWCAP), getauxval(AT_HWCAP2),
           getauxval(AT_DCACHEBSIZE), getauxval(AT_ICACHEBSIZE), getauxval(AT_PAGESZ));
    printf("platform=%s random=%s phnum=%lu phent=%lu entry=%s\n", (const char *)getauxval(AT_PLATFORM),
           getauxval(AT_RANDOM) ? "yes" : "no", getauxval(AT_PHNUM), getauxval(AT_PHENT),
           getauxval(AT_ENTRY) ? "yes" : "no");
    const char *path = argv[1];
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (fd < 0) { perror("open"); return 1; }
    const char msg[] = "hello, file\n";
    if (write(fd, msg, sizeof msg - 1) != sizeof msg - 1) { perror("write"); return 1; }
    off_t end = lseek(fd, 0, SEEK_END);
    lseek(fd, 7, SEEK_SET);
    char buf[32] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    struct stat st;
    fstat(fd, &st);
    close(fd);
    struct stat st2;
    int s2 = stat(path, &st2);
    printf("end=%ld read=%zd [%s] size=%ld regular=%d stat=%d size2=%ld\n", (long)end, n, buf, (long)st.st_size,
           S_ISREG(st.st_mode), s2, (long)st2.st_size);
    unlink(path);
    printf("after unlink: %d\n", access(path, F_OK));
    char *big = malloc(8 << 20);
    memset(big, 7, 8 << 20);
    big = realloc(big, 32 << 20);
    big[(32 << 20) - 1] = 9;
    long sum = 0;
    for (int i = 0; i < (8 << 20); i += 4096) sum += big[i];
    printf("malloc sum=%ld last=%d\n", sum, big[(32 << 20) - 1]);
    free(big);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    printf("time ok=%d\n", ts.tv_sec > 0 || ts.tv_nsec > 0);
    struct utsname u;
    uname(&u);
    printf("machine=%s sys=%s\n", u.machine, u.sysname);
    fflush(stdout);
    if (argc > 2 && strcmp(argv[2], "bad-syscall") == 0) syscall(1000, 1, 2, 3);
    if (argc > 2 && strcmp(argv[2], "fork") == 0) syscall(SYS_fork);
    if (argc > 2 && strcmp(argv[2], "abort") == 0) abort();
    return 3;
}
"#;

fn probe(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let src = dir.join("probe.c");
    std::fs::write(&src, PROBE).unwrap();
    let exe = dir.join("probe.ppc");
    let o = Command::new("powerpc64-linux-gnu-gcc")
        .args(["-O2", "-static", "-mcpu=cell", "-maltivec", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("powerpc64-linux-gnu-gcc (./x setup installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    exe
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("recomp-linux")
}

#[test]
fn a_cell_process_on_the_interpreter() {
    let d = dir();
    let exe = probe(&d);
    let file = d.join("scratch.txt");
    let o = Command::new(RECOMP)
        .arg("run")
        .arg(&exe)
        .arg(&file)
        .arg("two words")
        .env("PROBE_VAR", "set")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(3),
        "stdout:\n{out}\nstderr:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let want = format!(
        "argc=3 [{}] [two words]\nenv=set\n\
         hwcap=0xdc014000 hwcap2=0 dcache=128 icache=128 pagesz=65536\n\
         platform=ppc-cell-be random=yes phnum=",
        file.display()
    );
    assert!(
        out.starts_with(&want),
        "got:\n{out}\nwanted it to start with:\n{want}"
    );
    for line in [
        "end=12 read=5 [file\n] size=12 regular=1 stat=0 size2=12",
        "after unlink: -1",
        "malloc sum=14336 last=9",
        "time ok=1",
        "machine=ppc64 sys=Linux",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
}

#[test]
fn unsupported_system_calls_are_named() {
    let d = dir().join("unsupported");
    let exe = probe(&d);
    for (arg, want) in [
        (
            "bad-syscall",
            "unsupported Linux system call 1000 (unknown)",
        ),
        ("fork", "unsupported Linux system call 2 (fork)"),
    ] {
        let o = Command::new(RECOMP)
            .arg("run")
            .arg(&exe)
            .arg(d.join("f"))
            .arg(arg)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(70), "{err}");
        assert!(
            err.contains(want) && err.contains("at guest pc 0x"),
            "{arg}: {err}"
        );
    }
}

#[test]
fn abort_kills_the_runner_with_sigabrt() {
    use std::os::unix::process::ExitStatusExt;
    let d = dir().join("abort");
    let exe = probe(&d);
    let o = Command::new(RECOMP)
        .arg("run")
        .arg(&exe)
        .arg(d.join("f"))
        .arg("abort")
        .output()
        .unwrap();
    assert_eq!(
        o.status.signal(),
        Some(6),
        "{:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn malformed_executables_are_refused_with_the_offset() {
    let d = dir().join("malformed");
    let exe = probe(&d);
    let mut data = std::fs::read(&exe).unwrap();
    data[19] = 0; // e_machine (big-endian 21 at offset 18) becomes 0
    let bad = d.join("bad.ppc");
    std::fs::write(&bad, &data).unwrap();
    let o = Command::new(RECOMP).arg("run").arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("bad.ppc") && err.contains("at file offset 0x12") && err.contains("e_machine"),
        "{err}"
    );
    let o = Command::new(RECOMP)
        .arg(&bad)
        .arg("-o")
        .arg(d.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("at file offset 0x12"),
        "{err}"
    );
}
