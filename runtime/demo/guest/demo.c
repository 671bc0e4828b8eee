/* cellport demo: a small PS3 game built with the guest SDK.
 *
 * An animated scene drawn by the CPU into a GCM display buffer 30 times a
 * second (a periodic LV2 timer on an event queue paces it), flipped with
 * cellGcm. The pad steers the ship; a worker thread moves the balls. The
 * main thread and the worker meet once a frame through a semaphore and an
 * event flag; the world is under a reader/writer lock, the statistics
 * under a lightweight mutex, start-up and shutdown use a lightweight
 * condition and a mutex/condition pair. Every frame also sets the RSX
 * reference and a label, which the next frame checks.
 *
 *   demo [--frames N]      quit after N frames (default: when the system
 *                          asks, or START+SELECT)
 */
#include <cell/gcm.h>
#include <cell/pad.h>
#include <cell/sysutil.h>
#include <cell/videoout.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/memory.h>
#include <sys/ppu_thread.h>
#include <sys/process.h>
#include <sys/synchronization.h>
#include <sys/sys_time.h>
#include <sys/timer.h>

SYS_PROCESS_PARAM(1001, 0x100000)

#define FRAME_US 33333
#define BALLS 12
#define LABEL_FRAME 64
#define SHIP 40

typedef struct {
    int x, y, vx, vy; /* 16.16 fixed point */
    uint32_t colour;
    int hits;
} ball_t;

typedef struct {
    int x, y; /* 16.16 */
    int boost;
} ship_t;

static uint32_t width = 1280, height = 720, pitch;
static uint32_t *buffers[2];
static ship_t ship;
static ball_t balls[BALLS];
static sys_rwlock_t world_lock;
static sys_semaphore_t work_sem;
static sys_event_flag_t work_done;
static sys_lwmutex_t stats_lock;
static sys_lwcond_t worker_ready;
static sys_mutex_t quit_mutex;
static sys_cond_t quit_cond;
static volatile int worker_started, quit, worker_quit_seen, exit_requested;
static int stat_collisions, stat_steps;

/* ---- the worker: ball physics ---- */

static void step_balls(void)
{
    int w = (int)width << 16, h = (int)height << 16, r = 12 << 16;
    for (int i = 0; i < BALLS; i++) {
        ball_t *b = &balls[i];
        b->x += b->vx;
        b->y += b->vy;
        if (b->x < r) b->x = r, b->vx = -b->vx;
        if (b->x > w - r) b->x = w - r, b->vx = -b->vx;
        if (b->y < r) b->y = r, b->vy = -b->vy;
        if (b->y > h - r) b->y = h - r, b->vy = -b->vy;
        int dx = (b->x - ship.x) >> 16, dy = (b->y - ship.y) >> 16;
        if (dx > -SHIP / 2 - 12 && dx < SHIP / 2 + 12 && dy > -SHIP / 2 - 12 && dy < SHIP / 2 + 12) {
            b->vx = dx >= 0 ? abs(b->vx) : -abs(b->vx);
            b->vy = dy >= 0 ? abs(b->vy) : -abs(b->vy);
            b->colour = (b->colour * 0x9E3779B1u) | 0x404040;
            b->hits++;
            sys_lwmutex_lock(&stats_lock, 0);
            stat_collisions++;
            sys_lwmutex_unlock(&stats_lock);
        }
    }
}

static void worker(uint64_t arg)
{
    sys_lwmutex_lock(&stats_lock, 0);
    worker_started = 1;
    sys_lwcond_signal(&worker_ready);
    sys_lwmutex_unlock(&stats_lock);
    for (;;) {
        sys_semaphore_wait(work_sem, 0);
        if (quit) break;
        sys_rwlock_wlock(world_lock, 0);
        step_balls();
        sys_rwlock_wunlock(world_lock);
        sys_lwmutex_lock(&stats_lock, 0);
        stat_steps++;
        sys_lwmutex_unlock(&stats_lock);
        sys_event_flag_set(work_done, 1);
    }
    sys_mutex_lock(quit_mutex, 0);
    worker_quit_seen = 1;
    sys_cond_signal(quit_cond);
    sys_mutex_unlock(quit_mutex);
    sys_ppu_thread_exit(arg);
}

/* ---- drawing ---- */

static const uint8_t digits[10][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 2, 2}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
};

static void fill_rect(uint32_t *fb, int x0, int y0, int w, int h, uint32_t c)
{
    if (x0 < 0) w += x0, x0 = 0;
    if (y0 < 0) h += y0, y0 = 0;
    if (x0 + w > (int)width) w = (int)width - x0;
    if (y0 + h > (int)height) h = (int)height - y0;
    for (int y = y0; y < y0 + h; y++) {
        uint32_t *row = fb + (size_t)y * (pitch / 4);
        for (int x = x0; x < x0 + w; x++) row[x] = c;
    }
}

static void draw_number(uint32_t *fb, int x, int y, unsigned n, uint32_t c)
{
    char s[12];
    int len = snprintf(s, sizeof s, "%u", n);
    for (int i = 0; i < len; i++)
        for (int r = 0; r < 5; r++)
            for (int k = 0; k < 3; k++)
                if (digits[s[i] - '0'][r] & (4 >> k)) fill_rect(fb, x + i * 16 + k * 4, y + r * 4, 4, 4, c);
}

static void draw_ball(uint32_t *fb, const ball_t *b)
{
    int cx = b->x >> 16, cy = b->y >> 16;
    for (int dy = -12; dy <= 12; dy++) {
        int y = cy + dy;
        if (y < 0 || y >= (int)height) continue;
        uint32_t *row = fb + (size_t)y * (pitch / 4);
        for (int dx = -12; dx <= 12; dx++) {
            int x = cx + dx;
            if (x >= 0 && x < (int)width && dx * dx + dy * dy <= 144) row[x] = b->colour;
        }
    }
}

static void draw(uint32_t *fb, unsigned frame)
{
    /* A scrolling gradient, two pixels a store. */
    for (uint32_t y = 0; y < height; y++) {
        uint32_t t = (y + frame * 2) & 511;
        uint32_t v = t < 256 ? t : 511 - t;
        uint32_t c = (v / 4) << 16 | (v / 3) << 8 | (96 + v / 3);
        if (((y + frame) & 63) == 0) c = 0x00303050;
        uint64_t two = (uint64_t)c << 32 | c;
        uint64_t *row = (uint64_t *)(fb + (size_t)y * (pitch / 4));
        for (uint32_t x = 0; x < width / 2; x++) row[x] = two;
    }
    for (int i = 0; i < BALLS; i++) draw_ball(fb, &balls[i]);
    int sx = (ship.x >> 16) - SHIP / 2, sy = (ship.y >> 16) - SHIP / 2;
    fill_rect(fb, sx - 3, sy - 3, SHIP + 6, SHIP + 6, ship.boost ? 0x00FFFF60 : 0x00FFFFFF);
    fill_rect(fb, sx, sy, SHIP, SHIP, 0x00E04020);
    draw_number(fb, 24, 24, frame, 0x00FFFFFF);
}

/* ---- input ---- */

static void sysutil_callback(uint64_t status, uint64_t param, void *userdata)
{
    if (status == CELL_SYSUTIL_REQUEST_EXITGAME) exit_requested = 1;
}

static uint16_t held1, held2;
static uint8_t stick_x = 128, stick_y = 128;

static void read_pad(void)
{
    CellPadData d;
    if (cellPadGetData(0, &d) != CELL_OK || d.len == 0) return;
    held1 = d.button[CELL_PAD_BTN_OFFSET_DIGITAL1];
    held2 = d.button[CELL_PAD_BTN_OFFSET_DIGITAL2];
    stick_x = (uint8_t)d.button[CELL_PAD_BTN_OFFSET_ANALOG_LEFT_X];
    stick_y = (uint8_t)d.button[CELL_PAD_BTN_OFFSET_ANALOG_LEFT_Y];
}

static void move_ship(void)
{
    int speed = (held2 & CELL_PAD_CTRL_CROSS) ? 12 : 6;
    int dx = ((int)stick_x - 128) * speed / 128, dy = ((int)stick_y - 128) * speed / 128;
    if (held1 & CELL_PAD_CTRL_LEFT) dx = -speed;
    if (held1 & CELL_PAD_CTRL_RIGHT) dx = speed;
    if (held1 & CELL_PAD_CTRL_UP) dy = -speed;
    if (held1 & CELL_PAD_CTRL_DOWN) dy = speed;
    ship.boost = speed > 6;
    ship.x += dx << 16;
    ship.y += dy << 16;
    int lo = SHIP / 2 << 16;
    if (ship.x < lo) ship.x = lo;
    if (ship.y < lo) ship.y = lo;
    if (ship.x > (int)(width << 16) - lo) ship.x = (int)(width << 16) - lo;
    if (ship.y > (int)(height << 16) - lo) ship.y = (int)(height << 16) - lo;
}

/* ---- start-up ---- */

static int init_video(void)
{
    CellVideoOutState state;
    CellVideoOutResolution res;
    if (cellVideoOutGetState(CELL_VIDEO_OUT_PRIMARY, 0, &state) != CELL_OK) return -1;
    if (cellVideoOutGetResolution(state.displayMode.resolutionId, &res) != CELL_OK) return -1;
    width = res.width;
    height = res.height;
    pitch = width * 4;
    CellVideoOutConfiguration cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.resolutionId = state.displayMode.resolutionId;
    cfg.format = CELL_VIDEO_OUT_BUFFER_COLOR_FORMAT_X8R8G8B8;
    cfg.aspect = state.displayMode.aspect;
    cfg.pitch = pitch;
    if (cellVideoOutConfigure(CELL_VIDEO_OUT_PRIMARY, &cfg, 0, 0) != CELL_OK) return -1;

    sys_addr_t io;
    if (sys_memory_allocate(0x100000, SYS_MEMORY_PAGE_SIZE_1M, &io) != CELL_OK) return -1;
    if (cellGcmInit(0x10000, 0x100000, PS3_PTR(io)) != CELL_OK) return -1;
    CellGcmConfig gc;
    cellGcmGetConfiguration(&gc);
    uint32_t size = (pitch * height + 0xFFFF) & ~0xFFFFu;
    for (int i = 0; i < 2; i++) {
        buffers[i] = PS3_PTR(gc.localAddress + i * size);
        uint32_t offset;
        if (cellGcmAddressToOffset(buffers[i], &offset) != CELL_OK) return -1;
        if (cellGcmSetDisplayBuffer(i, offset, pitch, width, height) != CELL_OK) return -1;
    }
    cellGcmSetFlipMode(CELL_GCM_DISPLAY_VSYNC);
    return 0;
}

static void init_sync(void)
{
    sys_rwlock_attribute_t ra;
    memset(&ra, 0, sizeof ra);
    ra.attr_protocol = SYS_SYNC_PRIORITY;
    ra.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    sys_rwlock_create(&world_lock, &ra);
    sys_semaphore_attribute_t sa;
    memset(&sa, 0, sizeof sa);
    sa.attr_protocol = SYS_SYNC_FIFO;
    sa.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    sys_semaphore_create(&work_sem, &sa, 0, 8);
    sys_event_flag_attribute_t fa;
    memset(&fa, 0, sizeof fa);
    fa.attr_protocol = SYS_SYNC_FIFO;
    fa.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    fa.type = SYS_SYNC_WAITER_SINGLE;
    sys_event_flag_create(&work_done, &fa, 0);
    sys_lwmutex_attribute_t la = {SYS_SYNC_PRIORITY, SYS_SYNC_NOT_RECURSIVE, "stats"};
    sys_lwmutex_create(&stats_lock, &la);
    sys_lwcond_attribute_t lca = {"ready"};
    sys_lwcond_create(&worker_ready, &stats_lock, &lca);
    sys_mutex_attribute_t ma;
    sys_mutex_attribute_initialize(&ma);
    sys_mutex_create(&quit_mutex, &ma);
    sys_cond_attribute_t ca;
    memset(&ca, 0, sizeof ca);
    ca.attr_pshared = SYS_SYNC_NOT_PROCESS_SHARED;
    sys_cond_create(&quit_cond, quit_mutex, &ca);
}

static void init_world(void)
{
    ship.x = (int)(width / 2) << 16;
    ship.y = (int)(height / 2) << 16;
    uint32_t seed = 12345;
    for (int i = 0; i < BALLS; i++) {
        seed = seed * 1664525u + 1013904223u;
        balls[i].x = (int)(40 + seed % (width - 80)) << 16;
        seed = seed * 1664525u + 1013904223u;
        balls[i].y = (int)(40 + seed % (height - 80)) << 16;
        balls[i].vx = (int)(seed >> 16) % 0x60000 - 0x30000;
        balls[i].vy = (int)(seed >> 8) % 0x50000 - 0x28000;
        if (balls[i].vx == 0) balls[i].vx = 0x18000;
        if (balls[i].vy == 0) balls[i].vy = 0x14000;
        balls[i].colour = 0x00402000u | (seed & 0x00BFDFFFu);
    }
}

int main(int argc, char **argv)
{
    unsigned max_frames = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--frames")) max_frames = (unsigned)atoi(argv[i + 1]);

    cellSysutilRegisterCallback(0, sysutil_callback, 0);
    if (cellPadInit(1) != CELL_OK || init_video() != 0) {
        printf("demo: video/pad init failed\n");
        return 1;
    }
    printf("demo: %ux%u, %s\n", width, height, max_frames ? "fixed frame count" : "until asked to quit");
    init_sync();
    init_world();

    sys_ppu_thread_t wt;
    sys_ppu_thread_create(&wt, worker, 0x77, 1000, 0x10000, SYS_PPU_THREAD_CREATE_JOINABLE, "physics");
    sys_lwmutex_lock(&stats_lock, 0);
    while (!worker_started) sys_lwcond_wait(&worker_ready, 0);
    sys_lwmutex_unlock(&stats_lock);

    sys_event_queue_t tick_queue;
    sys_event_queue_attribute_t qa = {SYS_SYNC_FIFO, SYS_PPU_QUEUE, "tick"};
    sys_event_queue_create(&tick_queue, &qa, SYS_EVENT_QUEUE_LOCAL, 8);
    sys_timer_t timer;
    sys_timer_create(&timer);
    sys_timer_connect_event_queue(timer, tick_queue, 0x7469636B, 0, 0);
    sys_timer_start_periodic(timer, FRAME_US);

    CellGcmContextData *ctx = gCellGcmCurrentContext;
    CellGcmControl *ctrl = cellGcmGetControl();
    volatile uint32_t *label = PS3_PTR(cellGcmGetLabelAddress(LABEL_FRAME));
    *label = 0;
    unsigned frame = 0, label_misses = 0, ref_misses = 0;
    system_time_t start = sys_time_get_system_time(), last_report = start;
    while (!exit_requested && (max_frames == 0 || frame < max_frames)) {
        sys_event_t ev;
        sys_event_queue_receive(tick_queue, &ev, 0);
        cellSysutilCheckCallback();
        read_pad();
        if ((held1 & (CELL_PAD_CTRL_START | CELL_PAD_CTRL_SELECT)) == (CELL_PAD_CTRL_START | CELL_PAD_CTRL_SELECT)) break;
        move_ship();

        /* The worker moves the balls while this thread waits for the RSX. */
        sys_semaphore_post(work_sem, 1);
        while (cellGcmGetFlipStatus() != CELL_GCM_DISPLAY_FLIP_STATUS_DONE) sys_timer_usleep(200);
        if (frame > 0) {
            if (*label != frame) label_misses++;
            if (ctrl->ref != frame) ref_misses++;
        }
        uint64_t bits;
        sys_event_flag_wait(work_done, 1, SYS_EVENT_FLAG_WAIT_AND | SYS_EVENT_FLAG_WAIT_CLEAR, &bits, 0);

        frame++;
        uint32_t buf = frame & 1;
        sys_rwlock_rlock(world_lock, 0);
        draw(buffers[buf], frame);
        sys_rwlock_runlock(world_lock);

        /* The reference and the label go before the flip: once the flip is
         * done, the RSX has passed both. */
        cellGcmResetFlipStatus();
        cellGcmSetReferenceCommand(ctx, frame);
        cellGcmSetWriteCommandLabel(ctx, LABEL_FRAME, frame);
        cellGcmSetFlip(ctx, buf);
        cellGcmFlush(ctx);

        system_time_t now = sys_time_get_system_time();
        if (now - last_report >= 1000000) {
            sys_lwmutex_lock(&stats_lock, 0);
            printf("demo: frame %u, %.1f fps, ship %d,%d, %d collisions\n", frame,
                   (double)frame * 1e6 / (double)(now - start), ship.x >> 16, ship.y >> 16, stat_collisions);
            sys_lwmutex_unlock(&stats_lock);
            last_report = now;
        }
    }
    while (cellGcmGetFlipStatus() != CELL_GCM_DISPLAY_FLIP_STATUS_DONE) sys_timer_usleep(200);
    sys_timer_stop(timer);
    sys_timer_disconnect_event_queue(timer);
    sys_timer_destroy(timer);

    quit = 1;
    sys_semaphore_post(work_sem, 1);
    sys_mutex_lock(quit_mutex, 0);
    while (!worker_quit_seen) sys_cond_wait(quit_cond, 0);
    sys_mutex_unlock(quit_mutex);
    uint64_t wv;
    sys_ppu_thread_join(wt, &wv);
    printf("demo: %u frames, ship at %d,%d, %d collisions, %d worker steps, %u label and %u reference misses\n",
           frame, ship.x >> 16, ship.y >> 16, stat_collisions, stat_steps, label_misses, ref_misses);
    return label_misses || ref_misses || wv != 0x77 ? 3 : 0;
}
