//! The system call table: number (r11) to handler. Numbers are LV2's (the
//! public record: RPCS3's `lv2.cpp`). A number without a handler is named
//! once in the log and returns `CELL_ENOSYS`.

use std::sync::Arc;

use crate::error::{CELL_OK, CellError, Exit, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;
use crate::{event, event_flag, fs, memory, mutex, semaphore, thread, time, timer, tty};

/// The process identifier `sys_process_getpid` returns.
pub const PROCESS_ID: u32 = 0x0100_0500;

/// 1 `sys_process_getpid()`.
fn sys_process_getpid(_p: &Arc<Process>, _t: &mut GuestThread) -> SysResult {
    Ok(u64::from(PROCESS_ID))
}

/// 3 `sys_process_exit(status)`, 22 `_sys_process_exit(status, ...)`.
fn sys_process_exit(_p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    Err(Exit::Process(t.arg_i32(0)).into())
}

/// 25 `sys_process_get_sdk_version(pid, u32* version)`.
fn sys_process_get_sdk_version(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    if t.arg_u32(0) != PROCESS_ID {
        return Err(CellError::ESRCH.into());
    }
    t.vm().write_u32(t.arg_u32(1), p.params.sdk_version)?;
    CELL_OK
}

/// The name of system call `n`, for messages (the implemented ones).
pub fn name(n: u64) -> &'static str {
    match n {
        1 => "sys_process_getpid",
        3 => "sys_process_exit",
        22 => "_sys_process_exit",
        25 => "sys_process_get_sdk_version",
        41 => "_sys_ppu_thread_exit",
        43 => "sys_ppu_thread_yield",
        44 => "sys_ppu_thread_join",
        45 => "sys_ppu_thread_detach",
        46 => "sys_ppu_thread_get_join_state",
        47 => "sys_ppu_thread_set_priority",
        48 => "sys_ppu_thread_get_priority",
        49 => "sys_ppu_thread_get_stack_information",
        52 => "_sys_ppu_thread_create",
        53 => "sys_ppu_thread_start",
        56 => "sys_ppu_thread_rename",
        70..=76 => "sys_timer_*",
        82..=87 | 118 | 132 | 139 => "sys_event_flag_*",
        90..=94 | 114 => "sys_semaphore_*",
        100..=104 => "sys_mutex_*",
        105..=110 => "sys_cond_*",
        120..=127 | 148 => "sys_rwlock_*",
        128..=133 => "sys_event_queue_*",
        134..=138 => "sys_event_port_*",
        141 => "sys_timer_usleep",
        142 => "sys_timer_sleep",
        144 => "sys_time_get_timezone",
        145 => "sys_time_get_current_time",
        147 => "sys_time_get_timebase_frequency",
        324 | 325 | 341..=343 => "sys_memory_container_*",
        348..=352 => "sys_memory_*",
        402 => "sys_tty_read",
        403 => "sys_tty_write",
        801..=832 => "sys_fs_*",
        _ => "?",
    }
}

/// Runs system call `n` for `t`.
pub fn dispatch(p: &Arc<Process>, n: u64, t: &mut GuestThread) -> SysResult {
    match n {
        1 => sys_process_getpid(p, t),
        3 | 22 => sys_process_exit(p, t),
        25 => sys_process_get_sdk_version(p, t),
        41 => thread::sys_ppu_thread_exit(p, t),
        43 => thread::sys_ppu_thread_yield(p, t),
        44 => thread::sys_ppu_thread_join(p, t),
        45 => thread::sys_ppu_thread_detach(p, t),
        46 => thread::sys_ppu_thread_get_join_state(p, t),
        47 => thread::sys_ppu_thread_set_priority(p, t),
        48 => thread::sys_ppu_thread_get_priority(p, t),
        49 => thread::sys_ppu_thread_get_stack_information(p, t),
        52 => thread::sys_ppu_thread_create_raw(p, t),
        53 => thread::sys_ppu_thread_start(p, t),
        56 => thread::sys_ppu_thread_rename(p, t),
        70 => timer::sys_timer_create(p, t),
        71 => timer::sys_timer_destroy(p, t),
        72 => timer::sys_timer_get_information(p, t),
        73 => timer::sys_timer_start(p, t),
        74 => timer::sys_timer_stop(p, t),
        75 => timer::sys_timer_connect_event_queue(p, t),
        76 => timer::sys_timer_disconnect_event_queue(p, t),
        82 => event_flag::sys_event_flag_create(p, t),
        83 => event_flag::sys_event_flag_destroy(p, t),
        85 => event_flag::sys_event_flag_wait(p, t),
        86 => event_flag::sys_event_flag_trywait(p, t),
        87 => event_flag::sys_event_flag_set(p, t),
        90 => semaphore::sys_semaphore_create(p, t),
        91 => semaphore::sys_semaphore_destroy(p, t),
        92 => semaphore::sys_semaphore_wait(p, t),
        93 => semaphore::sys_semaphore_trywait(p, t),
        94 => semaphore::sys_semaphore_post(p, t),
        100 => mutex::sys_mutex_create(p, t),
        101 => mutex::sys_mutex_destroy(p, t),
        102 => mutex::sys_mutex_lock(p, t),
        103 => mutex::sys_mutex_trylock(p, t),
        104 => mutex::sys_mutex_unlock(p, t),
        105 => mutex::sys_cond_create(p, t),
        106 => mutex::sys_cond_destroy(p, t),
        107 => mutex::sys_cond_wait(p, t),
        108 => mutex::sys_cond_signal(p, t),
        109 => mutex::sys_cond_signal_all(p, t),
        110 => mutex::sys_cond_signal_to(p, t),
        114 => semaphore::sys_semaphore_get_value(p, t),
        118 => event_flag::sys_event_flag_clear(p, t),
        120 => mutex::sys_rwlock_create(p, t),
        121 => mutex::sys_rwlock_destroy(p, t),
        122 => mutex::sys_rwlock_rlock(p, t, false),
        123 => mutex::sys_rwlock_rlock(p, t, true),
        124 => mutex::sys_rwlock_runlock(p, t),
        125 => mutex::sys_rwlock_wlock(p, t, false),
        126 | 148 => mutex::sys_rwlock_wlock(p, t, true),
        127 => mutex::sys_rwlock_wunlock(p, t),
        128 => event::sys_event_queue_create(p, t),
        129 => event::sys_event_queue_destroy(p, t),
        130 => event::sys_event_queue_receive(p, t),
        131 => event::sys_event_queue_tryreceive(p, t),
        132 => event_flag::sys_event_flag_cancel(p, t),
        133 => event::sys_event_queue_drain(p, t),
        134 => event::sys_event_port_create(p, t),
        135 => event::sys_event_port_destroy(p, t),
        136 => event::sys_event_port_connect_local(p, t),
        137 => event::sys_event_port_disconnect(p, t),
        138 => event::sys_event_port_send(p, t),
        139 => event_flag::sys_event_flag_get(p, t),
        141 => time::sys_timer_usleep(p, t),
        142 => time::sys_timer_sleep(p, t),
        144 => time::sys_time_get_timezone(p, t),
        145 => time::sys_time_get_current_time(p, t),
        147 => time::sys_time_get_timebase_frequency(p, t),
        324 | 341 => memory::sys_memory_container_create(p, t),
        325 | 342 => memory::sys_memory_container_destroy(p, t),
        343 => memory::sys_memory_container_get_size(p, t),
        348 => memory::sys_memory_allocate(p, t),
        349 => memory::sys_memory_free(p, t),
        350 => memory::sys_memory_allocate_from_container(p, t),
        351 => memory::sys_memory_get_page_attribute(p, t),
        352 => memory::sys_memory_get_user_memory_size(p, t),
        402 => tty::sys_tty_read(p, t),
        403 => tty::sys_tty_write(p, t),
        801 => fs::sys_fs_open(p, t),
        802 => fs::sys_fs_read(p, t),
        803 => fs::sys_fs_write(p, t),
        804 => fs::sys_fs_close(p, t),
        805 => fs::sys_fs_opendir(p, t),
        806 => fs::sys_fs_readdir(p, t),
        807 => fs::sys_fs_closedir(p, t),
        808 => fs::sys_fs_stat(p, t),
        809 => fs::sys_fs_fstat(p, t),
        811 => fs::sys_fs_mkdir(p, t),
        812 => fs::sys_fs_rename(p, t),
        813 => fs::sys_fs_rmdir(p, t),
        814 => fs::sys_fs_unlink(p, t),
        818 => fs::sys_fs_lseek(p, t),
        820 => fs::sys_fs_fsync(p, t),
        831 => fs::sys_fs_truncate(p, t),
        832 => fs::sys_fs_ftruncate(p, t),
        _ => {
            p.report_once(n, || {
                format!(
                    "unimplemented system call {n} (r3={:#x} r4={:#x} r5={:#x}) from {:#010x}: returns CELL_ENOSYS",
                    t.ctx.gpr[3], t.ctx.gpr[4], t.ctx.gpr[5], t.ctx.cia.wrapping_sub(4)
                )
            });
            Err(CellError::ENOSYS.into())
        }
    }
}
