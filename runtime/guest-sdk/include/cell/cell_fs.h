/* File access: the cellFs functions of the sys_fs module (imports). Paths
 * are PS3 paths (/dev_hdd0/..., /app_home/...); the runtime maps them
 * into a sandboxed host folder. */
#ifndef PS3SDK_CELL_CELL_FS_H
#define PS3SDK_CELL_CELL_FS_H

#include <sys/types.h>

#define CELL_FS_SUCCEEDED 0
#define CELL_FS_O_RDONLY 000000
#define CELL_FS_O_WRONLY 000001
#define CELL_FS_O_RDWR 000002
#define CELL_FS_O_ACCMODE 000003
#define CELL_FS_O_CREAT 000100
#define CELL_FS_O_EXCL 000200
#define CELL_FS_O_TRUNC 001000
#define CELL_FS_O_APPEND 002000
#define CELL_FS_SEEK_SET 0
#define CELL_FS_SEEK_CUR 1
#define CELL_FS_SEEK_END 2
#define CELL_FS_S_IFDIR 0040000
#define CELL_FS_S_IFREG 0100000
#define CELL_FS_S_IFMT 0170000
#define CELL_FS_TYPE_DIRECTORY 1
#define CELL_FS_TYPE_REGULAR 2
#define CELL_FS_MAX_FS_FILE_NAME_LENGTH 255

typedef struct {
    int32_t st_mode;
    int32_t st_uid;
    int32_t st_gid;
    int64_t st_atime_;
    int64_t st_mtime_;
    int64_t st_ctime_;
    uint64_t st_size;
    uint64_t st_blksize;
} __attribute__((packed, aligned(4))) CellFsStat;   /* 52 bytes */

typedef struct {
    uint8_t d_type;
    uint8_t d_namlen;
    char d_name[256];
} CellFsDirent;

extern int cellFsOpen(const char *path, int flags, int *fd, const void *arg, uint64_t size);
extern int cellFsRead(int fd, void *buf, uint64_t nbytes, uint64_t *nread);
extern int cellFsWrite(int fd, const void *buf, uint64_t nbytes, uint64_t *nwrite);
extern int cellFsClose(int fd);
extern int cellFsLseek(int fd, int64_t offset, int whence, uint64_t *pos);
extern int cellFsStat(const char *path, CellFsStat *sb);
extern int cellFsFstat(int fd, CellFsStat *sb);
extern int cellFsMkdir(const char *path, int mode);
extern int cellFsRmdir(const char *path);
extern int cellFsUnlink(const char *path);
extern int cellFsRename(const char *from, const char *to);
extern int cellFsOpendir(const char *path, int *fd);
extern int cellFsReaddir(int fd, CellFsDirent *dir, uint64_t *nread);
extern int cellFsClosedir(int fd);
extern int cellFsFtruncate(int fd, uint64_t size);
extern int cellFsTruncate(const char *path, uint64_t size);
extern int cellFsFsync(int fd);

#endif
