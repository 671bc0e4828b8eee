/* Files: cellFs (sys_fs module) and the sys_fs_* system calls on the
 * sandboxed folder. */
#include <cell/cell_fs.h>
#include <sys/syscall.h>
#include <string.h>
#include "ps3test.h"

#define DIR_ "/dev_hdd0/game/TEST00000/USRDIR"

int main(int argc, char **argv, char **envp)
{
    CellFsStat st;
    int fd = -1;
    cellFsRmdir(DIR_ "/sub"); /* a leftover from an earlier run */
    cellFsUnlink(DIR_ "/data.bin");
    cellFsUnlink(DIR_ "/renamed.bin");
    cellFsMkdir("/dev_hdd0", 0777);
    cellFsMkdir("/dev_hdd0/game", 0777);
    cellFsMkdir("/dev_hdd0/game/TEST00000", 0777);
    int r = cellFsMkdir(DIR_, 0777);
    CHECK(r == CELL_OK || r == CELL_EEXIST);
    CHECK_EQ(cellFsMkdir(DIR_, 0777), CELL_EEXIST);
    CHECK_EQ(cellFsStat(DIR_, &st), CELL_OK);
    CHECK_EQ(st.st_mode & CELL_FS_S_IFMT, CELL_FS_S_IFDIR);

    CHECK_EQ(cellFsOpen(DIR_ "/missing.bin", CELL_FS_O_RDONLY, &fd, 0, 0), CELL_ENOENT);
    CHECK_EQ(cellFsOpen(DIR_ "/data.bin", CELL_FS_O_WRONLY | CELL_FS_O_CREAT | CELL_FS_O_TRUNC, &fd, 0, 0), CELL_OK);
    CHECK(fd >= 3);
    char buf[256];
    for (int i = 0; i < 256; i++) buf[i] = (char)i;
    uint64_t n = 0;
    CHECK_EQ(cellFsWrite(fd, buf, 256, &n), CELL_OK);
    CHECK_EQ(n, 256);
    CHECK_EQ(cellFsWrite(fd, "tail", 4, &n), CELL_OK);
    CHECK_EQ(cellFsRead(fd, buf, 4, &n), CELL_EBADF); /* write-only */
    CHECK_EQ(cellFsFstat(fd, &st), CELL_OK);
    CHECK_EQ(st.st_size, 260);
    CHECK_EQ(st.st_mode & CELL_FS_S_IFMT, CELL_FS_S_IFREG);
    CHECK_EQ(cellFsClose(fd), CELL_OK);
    CHECK_EQ(cellFsClose(fd), CELL_EBADF);
    CHECK_EQ(cellFsOpen(DIR_ "/data.bin", CELL_FS_O_WRONLY | CELL_FS_O_CREAT | CELL_FS_O_EXCL, &fd, 0, 0), CELL_EEXIST);

    CHECK_EQ(cellFsOpen(DIR_ "/data.bin", CELL_FS_O_RDWR, &fd, 0, 0), CELL_OK);
    uint64_t pos = 0;
    CHECK_EQ(cellFsLseek(fd, 100, CELL_FS_SEEK_SET, &pos), CELL_OK);
    CHECK_EQ(pos, 100);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(cellFsRead(fd, buf, 8, &n), CELL_OK);
    CHECK_EQ(n, 8);
    CHECK_EQ((unsigned char)buf[0], 100);
    CHECK_EQ((unsigned char)buf[7], 107);
    CHECK_EQ(cellFsLseek(fd, -4, CELL_FS_SEEK_END, &pos), CELL_OK);
    CHECK_EQ(pos, 256);
    CHECK_EQ(cellFsRead(fd, buf, 100, &n), CELL_OK);
    CHECK_EQ(n, 4);
    CHECK_EQ(memcmp(buf, "tail", 4), 0);
    CHECK_EQ(cellFsRead(fd, buf, 100, &n), CELL_OK);
    CHECK_EQ(n, 0); /* at the end */
    CHECK_EQ(cellFsLseek(fd, 0, 9, &pos), CELL_EINVAL);
    CHECK_EQ(cellFsFtruncate(fd, 10), CELL_OK);
    CHECK_EQ(cellFsFstat(fd, &st), CELL_OK);
    CHECK_EQ(st.st_size, 10);
    CHECK_EQ(cellFsFsync(fd), CELL_OK);
    CHECK_EQ(cellFsClose(fd), CELL_OK);

    /* The same through the system calls. */
    int sfd = -1;
    CHECK_EQ((int)ps3_syscall6(SYS_FS_OPEN, PS3_ADDR(DIR_ "/data.bin"), CELL_FS_O_RDONLY, PS3_ADDR(&sfd), 0, 0, 0), CELL_OK);
    CHECK_EQ((int)ps3_syscall4(SYS_FS_READ, sfd, PS3_ADDR(buf), 64, PS3_ADDR(&n)), CELL_OK);
    CHECK_EQ(n, 10);
    CHECK_EQ((unsigned char)buf[9], 9);
    CHECK_EQ((int)ps3_syscall2(SYS_FS_FSTAT, sfd, PS3_ADDR(&st)), CELL_OK);
    CHECK_EQ(st.st_size, 10);
    CHECK_EQ((int)ps3_syscall1(SYS_FS_CLOSE, sfd), CELL_OK);
    CHECK_EQ((int)ps3_syscall2(SYS_FS_STAT, PS3_ADDR("/dev_hdd0/nowhere"), PS3_ADDR(&st)), CELL_ENOENT);

    /* Directories. */
    CHECK_EQ(cellFsMkdir(DIR_ "/sub", 0777), CELL_OK);
    CHECK_EQ(cellFsRename(DIR_ "/data.bin", DIR_ "/renamed.bin"), CELL_OK);
    CHECK_EQ(cellFsStat(DIR_ "/data.bin", &st), CELL_ENOENT);
    CHECK_EQ(cellFsOpendir(DIR_ "/renamed.bin", &fd), CELL_ENOTDIR);
    CHECK_EQ(cellFsOpendir(DIR_, &fd), CELL_OK);
    int seen_dot = 0, seen_file = 0, seen_sub = 0, entries = 0;
    CellFsDirent de;
    for (;;) {
        CHECK_EQ(cellFsReaddir(fd, &de, &n), CELL_OK);
        if (n == 0) break;
        entries++;
        CHECK_EQ(de.d_namlen, strlen(de.d_name));
        if (!strcmp(de.d_name, ".")) seen_dot = 1;
        if (!strcmp(de.d_name, "renamed.bin")) seen_file = de.d_type == CELL_FS_TYPE_REGULAR;
        if (!strcmp(de.d_name, "sub")) seen_sub = de.d_type == CELL_FS_TYPE_DIRECTORY;
    }
    CHECK_EQ(entries, 4);
    CHECK(seen_dot && seen_file && seen_sub);
    CHECK_EQ(cellFsClosedir(fd), CELL_OK);
    CHECK_EQ(cellFsOpen(DIR_ "/sub/x", CELL_FS_O_WRONLY | CELL_FS_O_CREAT, &fd, 0, 0), CELL_OK);
    CHECK_EQ(cellFsClose(fd), CELL_OK);
    CHECK_EQ(cellFsRmdir(DIR_ "/sub"), CELL_ENOTEMPTY);
    CHECK_EQ(cellFsUnlink(DIR_ "/sub"), CELL_EISDIR);
    CHECK_EQ(cellFsUnlink(DIR_ "/sub/x"), CELL_OK);
    CHECK_EQ(cellFsRmdir(DIR_ "/sub"), CELL_OK);
    CHECK_EQ(cellFsTruncate(DIR_ "/renamed.bin", 3), CELL_OK);
    CHECK_EQ(cellFsStat(DIR_ "/renamed.bin", &st), CELL_OK);
    CHECK_EQ(st.st_size, 3);
    CHECK_EQ(cellFsUnlink(DIR_ "/renamed.bin"), CELL_OK);
    CHECK_EQ(cellFsUnlink(DIR_ "/renamed.bin"), CELL_ENOENT);
    /* ".." cannot leave the sandbox: this names /dev_hdd0 inside it. */
    CHECK_EQ(cellFsStat("/../../../dev_hdd0", &st), CELL_OK);
    CHECK_EQ(cellFsOpen("relative/path", CELL_FS_O_RDONLY, &fd, 0, 0), CELL_EINVAL);
    DONE("files");
}
