//! The TTY (system calls 402, 403): channel 0 is the process's standard
//! output (the platform's console).

use std::sync::Arc;

use crate::error::{CELL_OK, CellError, SysResult};
use crate::exec::GuestThread;
use crate::process::Process;

/// 403 `sys_tty_write(ch, buf, len, u32* pwritelen)`.
pub fn sys_tty_write(p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    let (ch, buf, len, out) = (t.arg_u32(0), t.arg_u32(1), t.arg_u32(2), t.arg_u32(3));
    if ch > 15 {
        return Err(CellError::EINVAL.into());
    }
    let vm = t.vm();
    vm.check_writable(out, 4)?;
    let data = vm.read_bytes(buf, len)?;
    p.platform.console_write(ch, &data);
    vm.write_u32(out, len)?;
    CELL_OK
}

/// 402 `sys_tty_read(ch, buf, len, u32* preadlen)`: there is no TTY
/// input; it reads nothing.
pub fn sys_tty_read(_p: &Arc<Process>, t: &mut GuestThread) -> SysResult {
    if t.arg_u32(0) > 15 {
        return Err(CellError::EINVAL.into());
    }
    t.vm().write_u32(t.arg_u32(3), 0)?;
    CELL_OK
}
