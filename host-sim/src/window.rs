//! `--window`: an X11 window that mirrors the simulated display, through
//! Vulkan's xcb surface (`VK_KHR_xcb_surface`, via ash).
//!
//! libxcb is opened at run time (`dlopen("libxcb.so.1")`), so host-sim
//! needs no X libraries unless a window is asked for; only the dozen xcb
//! calls that make, name, map, read back and close one window are used
//! (declared here, from xcb's public headers), which is why no window crate
//! is needed. The window's swapchain is separate from the simulated one: it
//! only shows, at most 60 times a second, the image the simulated display
//! has on screen. The tests run it under Xvfb and read the window back
//! ([`Window::grab`]).
//!
//! The keyboard is pad 0 ([`crate::keys`]): key presses and releases in
//! the window set the platform's pads, which the demo's cellPad reads.
//! `--window-keys` types a key script into the window through the X
//! server (`xcb_send_event`), as a person would.

use std::ffi::{CStr, c_char, c_int, c_void};

use anyhow::{Context, Result, bail};
use ash::vk;
use framegen_present::gpu::{self, CommandRing};

use crate::keys::{KeyScript, Keyboard};
use crate::vulkan::Gpu;

#[repr(C)]
#[derive(Clone, Copy)]
struct ScreenIterator {
    data: *mut Screen,
    rem: c_int,
    index: c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Screen {
    root: u32,
    default_colormap: u32,
    white_pixel: u32,
    black_pixel: u32,
    current_input_masks: u32,
    width_in_pixels: u16,
    height_in_pixels: u16,
    width_in_millimeters: u16,
    height_in_millimeters: u16,
    min_installed_maps: u16,
    max_installed_maps: u16,
    root_visual: u32,
    backing_stores: u8,
    save_unders: u8,
    root_depth: u8,
    allowed_depths_len: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Cookie {
    sequence: u32,
}

#[repr(C)]
struct GetImageReply {
    response_type: u8,
    depth: u8,
    sequence: u16,
    length: u32,
    visual: u32,
    pad0: [u8; 20],
}

type Connection = c_void;

/// `xcb_connect`.
type ConnectFn = unsafe extern "C" fn(*const c_char, *mut c_int) -> *mut Connection;
/// `xcb_connection_has_error`.
type ConnectionHasErrorFn = unsafe extern "C" fn(*mut Connection) -> c_int;
/// `xcb_get_setup`.
type GetSetupFn = unsafe extern "C" fn(*mut Connection) -> *const c_void;
/// `xcb_setup_roots_iterator`.
type SetupRootsIteratorFn = unsafe extern "C" fn(*const c_void) -> ScreenIterator;
/// `xcb_generate_id`.
type GenerateIdFn = unsafe extern "C" fn(*mut Connection) -> u32;
/// `xcb_create_window`.
type CreateWindowFn = unsafe extern "C" fn(
    *mut Connection,
    u8,
    u32,
    u32,
    i16,
    i16,
    u16,
    u16,
    u16,
    u16,
    u32,
    u32,
    *const u32,
) -> Cookie;
/// `xcb_change_property`.
type ChangePropertyFn =
    unsafe extern "C" fn(*mut Connection, u8, u32, u32, u32, u8, u32, *const c_void) -> Cookie;
/// `xcb_map_window`.
type MapWindowFn = unsafe extern "C" fn(*mut Connection, u32) -> Cookie;
/// `xcb_destroy_window`.
type DestroyWindowFn = unsafe extern "C" fn(*mut Connection, u32) -> Cookie;
/// `xcb_flush`.
type FlushFn = unsafe extern "C" fn(*mut Connection) -> c_int;
/// `xcb_poll_for_event`.
type PollForEventFn = unsafe extern "C" fn(*mut Connection) -> *mut c_void;
/// `xcb_get_image`.
type GetImageFn = unsafe extern "C" fn(*mut Connection, u8, u32, i16, i16, u16, u16, u32) -> Cookie;
/// `xcb_get_image_reply`.
type GetImageReplyFn =
    unsafe extern "C" fn(*mut Connection, Cookie, *mut *mut c_void) -> *mut GetImageReply;
/// `xcb_get_image_data`.
type GetImageDataFn = unsafe extern "C" fn(*const GetImageReply) -> *mut u8;
/// `xcb_get_image_data_length`.
type GetImageDataLengthFn = unsafe extern "C" fn(*const GetImageReply) -> c_int;
/// `xcb_disconnect`.
type DisconnectFn = unsafe extern "C" fn(*mut Connection);
/// `xcb_get_keyboard_mapping`.
type GetKeyboardMappingFn = unsafe extern "C" fn(*mut Connection, u8, u8) -> Cookie;
/// `xcb_get_keyboard_mapping_reply`.
type GetKeyboardMappingReplyFn =
    unsafe extern "C" fn(*mut Connection, Cookie, *mut *mut c_void) -> *mut KeyboardMappingReply;
/// `xcb_get_keyboard_mapping_keysyms`.
type GetKeyboardMappingKeysymsFn = unsafe extern "C" fn(*const KeyboardMappingReply) -> *const u32;
/// `xcb_get_keyboard_mapping_keysyms_length`.
type GetKeyboardMappingKeysymsLengthFn = unsafe extern "C" fn(*const KeyboardMappingReply) -> c_int;
/// `xcb_send_event`.
type SendEventFn = unsafe extern "C" fn(*mut Connection, u8, u32, u32, *const c_char) -> Cookie;

/// `xcb_get_keyboard_mapping_reply_t`'s header.
#[repr(C)]
struct KeyboardMappingReply {
    response_type: u8,
    keysyms_per_keycode: u8,
    sequence: u16,
    length: u32,
    pad0: [u8; 24],
}

/// `xcb_key_press_event_t` (and release: the same layout).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct KeyEvent {
    response_type: u8,
    detail: u8,
    sequence: u16,
    time: u32,
    root: u32,
    event: u32,
    child: u32,
    root_x: i16,
    root_y: i16,
    event_x: i16,
    event_y: i16,
    state: u16,
    same_screen: u8,
    pad0: u8,
}

/// The keyboard's mapping: the first keysym of each keycode.
#[derive(Debug, Default)]
struct Keymap {
    min_keycode: u8,
    syms: Vec<u32>,
}

impl Keymap {
    fn keysym(&self, keycode: u8) -> Option<u32> {
        let i = keycode.checked_sub(self.min_keycode)?;
        self.syms.get(usize::from(i)).copied().filter(|&s| s != 0)
    }

    fn keycode(&self, sym: u32) -> Option<u8> {
        let i = self.syms.iter().position(|&s| s == sym)?;
        u8::try_from(i + usize::from(self.min_keycode)).ok()
    }
}

/// The xcb functions used, looked up in libxcb.so.1.
struct Xcb {
    lib: *mut c_void,
    connect: ConnectFn,
    connection_has_error: ConnectionHasErrorFn,
    get_setup: GetSetupFn,
    setup_roots_iterator: SetupRootsIteratorFn,
    generate_id: GenerateIdFn,
    create_window: CreateWindowFn,
    change_property: ChangePropertyFn,
    map_window: MapWindowFn,
    destroy_window: DestroyWindowFn,
    flush: FlushFn,
    poll_for_event: PollForEventFn,
    get_image: GetImageFn,
    get_image_reply: GetImageReplyFn,
    get_image_data: GetImageDataFn,
    get_image_data_length: GetImageDataLengthFn,
    disconnect: DisconnectFn,
    get_keyboard_mapping: GetKeyboardMappingFn,
    get_keyboard_mapping_reply: GetKeyboardMappingReplyFn,
    get_keyboard_mapping_keysyms: GetKeyboardMappingKeysymsFn,
    get_keyboard_mapping_keysyms_length: GetKeyboardMappingKeysymsLengthFn,
    send_event: SendEventFn,
}

impl Xcb {
    fn load() -> Result<Xcb> {
        // SAFETY: dlopen of a library by name; checked for null.
        let lib =
            unsafe { libc::dlopen(c"libxcb.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if lib.is_null() {
            bail!("--window needs libxcb.so.1 (Debian package libxcb1), which could not be opened");
        }
        let sym = |name: &CStr| -> Result<*mut c_void> {
            // SAFETY: a symbol lookup in the library opened above.
            let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
            if p.is_null() {
                bail!("libxcb.so.1 has no {}", name.to_string_lossy());
            }
            Ok(p)
        };
        // SAFETY: each symbol is the xcb function of that name, whose C
        // signature (xcb.h, xproto.h) the field's type repeats.
        unsafe {
            Ok(Xcb {
                lib,
                connect: std::mem::transmute::<*mut c_void, ConnectFn>(sym(c"xcb_connect")?),
                connection_has_error: std::mem::transmute::<*mut c_void, ConnectionHasErrorFn>(
                    sym(c"xcb_connection_has_error")?,
                ),
                get_setup: std::mem::transmute::<*mut c_void, GetSetupFn>(sym(c"xcb_get_setup")?),
                setup_roots_iterator: std::mem::transmute::<*mut c_void, SetupRootsIteratorFn>(
                    sym(c"xcb_setup_roots_iterator")?,
                ),
                generate_id: std::mem::transmute::<*mut c_void, GenerateIdFn>(sym(
                    c"xcb_generate_id",
                )?),
                create_window: std::mem::transmute::<*mut c_void, CreateWindowFn>(sym(
                    c"xcb_create_window",
                )?),
                change_property: std::mem::transmute::<*mut c_void, ChangePropertyFn>(sym(
                    c"xcb_change_property",
                )?),
                map_window: std::mem::transmute::<*mut c_void, MapWindowFn>(sym(
                    c"xcb_map_window",
                )?),
                destroy_window: std::mem::transmute::<*mut c_void, DestroyWindowFn>(sym(
                    c"xcb_destroy_window",
                )?),
                flush: std::mem::transmute::<*mut c_void, FlushFn>(sym(c"xcb_flush")?),
                poll_for_event: std::mem::transmute::<*mut c_void, PollForEventFn>(sym(
                    c"xcb_poll_for_event",
                )?),
                get_image: std::mem::transmute::<*mut c_void, GetImageFn>(sym(c"xcb_get_image")?),
                get_image_reply: std::mem::transmute::<*mut c_void, GetImageReplyFn>(sym(
                    c"xcb_get_image_reply",
                )?),
                get_image_data: std::mem::transmute::<*mut c_void, GetImageDataFn>(sym(
                    c"xcb_get_image_data",
                )?),
                get_image_data_length: std::mem::transmute::<*mut c_void, GetImageDataLengthFn>(
                    sym(c"xcb_get_image_data_length")?,
                ),
                disconnect: std::mem::transmute::<*mut c_void, DisconnectFn>(sym(
                    c"xcb_disconnect",
                )?),
                get_keyboard_mapping: std::mem::transmute::<*mut c_void, GetKeyboardMappingFn>(
                    sym(c"xcb_get_keyboard_mapping")?,
                ),
                get_keyboard_mapping_reply: std::mem::transmute::<
                    *mut c_void,
                    GetKeyboardMappingReplyFn,
                >(sym(
                    c"xcb_get_keyboard_mapping_reply",
                )?),
                get_keyboard_mapping_keysyms: std::mem::transmute::<
                    *mut c_void,
                    GetKeyboardMappingKeysymsFn,
                >(sym(
                    c"xcb_get_keyboard_mapping_keysyms",
                )?),
                get_keyboard_mapping_keysyms_length: std::mem::transmute::<
                    *mut c_void,
                    GetKeyboardMappingKeysymsLengthFn,
                >(sym(
                    c"xcb_get_keyboard_mapping_keysyms_length",
                )?),
                send_event: std::mem::transmute::<*mut c_void, SendEventFn>(sym(
                    c"xcb_send_event",
                )?),
            })
        }
    }
}

const WINDOW_CLASS_INPUT_OUTPUT: u16 = 1;
const CW_BACK_PIXEL: u32 = 2;
const CW_EVENT_MASK: u32 = 2048;
const EVENT_MASK_KEY_PRESS: u32 = 1;
const EVENT_MASK_KEY_RELEASE: u32 = 2;
const EVENT_MASK_EXPOSURE: u32 = 32768;
const KEY_PRESS: u8 = 2;
const KEY_RELEASE: u8 = 3;
/// Where `xcb_setup_t` keeps `min_keycode` and `max_keycode`.
const SETUP_MIN_KEYCODE: usize = 34;
const EVENT_MASK_STRUCTURE_NOTIFY: u32 = 131_072;
const PROP_MODE_REPLACE: u8 = 0;
const ATOM_WM_NAME: u32 = 39;
const ATOM_STRING: u32 = 31;
const IMAGE_FORMAT_Z_PIXMAP: u8 = 2;

/// Mirrors shown per second at most.
const MAX_SHOWS_PER_S: f64 = 60.0;

/// The window, its surface and swapchain.
pub struct Window {
    xcb: Xcb,
    conn: *mut Connection,
    window: u32,
    device: ash::Device,
    queue: vk::Queue,
    surface_fn: ash::khr::surface::Instance,
    swapchain_fn: ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    extent: vk::Extent2D,
    acquire_sems: Vec<vk::Semaphore>,
    render_sems: Vec<vk::Semaphore>,
    ring: CommandRing,
    last_show: Option<std::time::Instant>,
    /// Pictures shown in the window.
    pub shown: u64,
    present_mode: vk::PresentModeKHR,
    root: u32,
    keymap: Keymap,
    keyboard: Keyboard,
    pads: Option<std::sync::Arc<dyn platform::Platform>>,
    /// Key events received.
    pub key_events: u64,
}

/// The keyboard mapping of the connection's X server (empty when it does
/// not answer: keys then do nothing).
fn keymap(xcb: &Xcb, conn: *mut Connection) -> Keymap {
    // SAFETY: the setup of a live connection is at least 40 bytes (its
    // fixed part); the mapping request and reply follow xproto.h, and the
    // reply is freed with free() as xcb documents.
    unsafe {
        let setup = (xcb.get_setup)(conn).cast::<u8>();
        let (min, max) = (
            *setup.add(SETUP_MIN_KEYCODE),
            *setup.add(SETUP_MIN_KEYCODE + 1),
        );
        if max < min {
            return Keymap::default();
        }
        let cookie = (xcb.get_keyboard_mapping)(conn, min, max - min + 1);
        let reply = (xcb.get_keyboard_mapping_reply)(conn, cookie, std::ptr::null_mut());
        if reply.is_null() {
            log::warn!("--window: the X server sent no keyboard mapping; keys do nothing");
            return Keymap::default();
        }
        let per = usize::from((*reply).keysyms_per_keycode).max(1);
        let n = usize::try_from((xcb.get_keyboard_mapping_keysyms_length)(reply)).unwrap_or(0);
        let all = std::slice::from_raw_parts((xcb.get_keyboard_mapping_keysyms)(reply), n);
        let syms = all.chunks(per).map(|c| c[0]).collect();
        libc::free(reply.cast());
        Keymap {
            min_keycode: min,
            syms,
        }
    }
}

fn vk_ctx(call: &'static str) -> impl Fn(vk::Result) -> anyhow::Error {
    move |e| anyhow::anyhow!("{call} failed: {e}")
}

impl Window {
    /// Opens a `width` x `height` window titled `title` on the X server
    /// `$DISPLAY` names, with a swapchain on `gpu` (made with the window
    /// extensions).
    pub fn new(gpu: &Gpu, width: u32, height: u32, title: &str) -> Result<Window> {
        if !gpu.window_extensions {
            bail!("the Vulkan device was made without the window extensions");
        }
        let xcb = Xcb::load()?;
        let display = std::env::var("DISPLAY").unwrap_or_default();
        let mut screen_no: c_int = 0;
        // SAFETY: xcb_connect with a null name uses $DISPLAY; checked below.
        let conn = unsafe { (xcb.connect)(std::ptr::null(), &mut screen_no) };
        // SAFETY: a connection from xcb_connect (never null; errors are flagged).
        if conn.is_null() || unsafe { (xcb.connection_has_error)(conn) } != 0 {
            if !conn.is_null() {
                // SAFETY: as above; freeing the failed connection.
                unsafe { (xcb.disconnect)(conn) };
            }
            bail!(
                "--window: cannot connect to the X server (DISPLAY={}); run under X, or `xvfb-run ./x sim --window`",
                if display.is_empty() {
                    "unset"
                } else {
                    &display
                }
            );
        }
        // SAFETY: the setup of a live connection; its root iterator points at
        // screen structures xcb owns for the connection's life.
        let screen = unsafe {
            let mut it = (xcb.setup_roots_iterator)((xcb.get_setup)(conn));
            for _ in 0..screen_no {
                if it.rem > 1 {
                    it.data = it.data.add(1);
                    it.rem -= 1;
                }
            }
            *it.data
        };
        let (w, h) = (
            width.min(u32::from(u16::MAX)) as u16,
            height.min(u32::from(u16::MAX)) as u16,
        );
        // SAFETY: xcb requests on the live connection; the value list
        // matches the mask (back pixel, then event mask, in bit order).
        let window = unsafe {
            let id = (xcb.generate_id)(conn);
            let values = [
                screen.black_pixel,
                EVENT_MASK_EXPOSURE
                    | EVENT_MASK_STRUCTURE_NOTIFY
                    | EVENT_MASK_KEY_PRESS
                    | EVENT_MASK_KEY_RELEASE,
            ];
            (xcb.create_window)(
                conn,
                0,
                id,
                screen.root,
                0,
                0,
                w,
                h,
                0,
                WINDOW_CLASS_INPUT_OUTPUT,
                screen.root_visual,
                CW_BACK_PIXEL | CW_EVENT_MASK,
                values.as_ptr(),
            );
            (xcb.change_property)(
                conn,
                PROP_MODE_REPLACE,
                id,
                ATOM_WM_NAME,
                ATOM_STRING,
                8,
                title.len() as u32,
                title.as_ptr().cast(),
            );
            (xcb.map_window)(conn, id);
            (xcb.flush)(conn);
            id
        };
        let keymap = keymap(&xcb, conn);
        let surface_fn = ash::khr::surface::Instance::new(&gpu.entry, &gpu.instance);
        let xcb_fn = ash::khr::xcb_surface::Instance::new(&gpu.entry, &gpu.instance);
        let info = vk::XcbSurfaceCreateInfoKHR::default()
            .connection(conn)
            .window(window);
        // SAFETY: a live xcb connection and window; destroyed in Drop.
        let surface = unsafe { xcb_fn.create_xcb_surface(&info, None) }
            .map_err(vk_ctx("vkCreateXcbSurfaceKHR"))?;
        let mut win = Window {
            xcb,
            conn,
            window,
            device: gpu.device.clone(),
            queue: gpu.queue,
            surface_fn,
            swapchain_fn: ash::khr::swapchain::Device::new(&gpu.instance, &gpu.device),
            surface,
            swapchain: vk::SwapchainKHR::null(),
            images: Vec::new(),
            extent: vk::Extent2D { width, height },
            acquire_sems: Vec::new(),
            render_sems: Vec::new(),
            ring: CommandRing::new(&gpu.device, gpu.queue_family, 3)
                .map_err(|e| anyhow::anyhow!("{e}"))?,
            last_show: None,
            shown: 0,
            present_mode: vk::PresentModeKHR::FIFO,
            root: screen.root,
            keymap,
            keyboard: Keyboard::default(),
            pads: None,
            key_events: 0,
        };
        win.make_swapchain(gpu).context("the window's swapchain")?;
        Ok(win)
    }

    fn make_swapchain(&mut self, gpu: &Gpu) -> Result<()> {
        let (pd, s) = (gpu.physical_device, self.surface);
        // SAFETY: our surface and the caller's physical device.
        unsafe {
            if !self
                .surface_fn
                .get_physical_device_surface_support(pd, gpu.queue_family, s)
                .map_err(vk_ctx("vkGetPhysicalDeviceSurfaceSupportKHR"))?
            {
                bail!("the Vulkan queue cannot present to the window");
            }
            let caps = self
                .surface_fn
                .get_physical_device_surface_capabilities(pd, s)
                .map_err(vk_ctx("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))?;
            let formats = self
                .surface_fn
                .get_physical_device_surface_formats(pd, s)
                .map_err(vk_ctx("vkGetPhysicalDeviceSurfaceFormatsKHR"))?;
            let modes = self
                .surface_fn
                .get_physical_device_surface_present_modes(pd, s)
                .map_err(vk_ctx("vkGetPhysicalDeviceSurfacePresentModesKHR"))?;
            let format = formats
                .iter()
                .find(|f| f.format == vk::Format::B8G8R8A8_UNORM)
                .or(formats.first())
                .copied()
                .context("the window's surface offers no format")?;
            // The window only mirrors: never wait for its vblank.
            self.present_mode = [vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::IMMEDIATE]
                .into_iter()
                .find(|m| modes.contains(m))
                .unwrap_or(vk::PresentModeKHR::FIFO);
            if caps.current_extent.width != u32::MAX {
                self.extent = caps.current_extent;
            }
            let mut count = caps.min_image_count.max(2) + 1;
            if caps.max_image_count != 0 {
                count = count.min(caps.max_image_count);
            }
            let info = vk::SwapchainCreateInfoKHR::default()
                .surface(s)
                .min_image_count(count)
                .image_format(format.format)
                .image_color_space(format.color_space)
                .image_extent(self.extent)
                .image_array_layers(1)
                .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
                .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
                .pre_transform(caps.current_transform)
                .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
                .present_mode(self.present_mode)
                .clipped(true);
            self.swapchain = self
                .swapchain_fn
                .create_swapchain(&info, None)
                .map_err(vk_ctx("vkCreateSwapchainKHR"))?;
            self.images = self
                .swapchain_fn
                .get_swapchain_images(self.swapchain)
                .map_err(vk_ctx("vkGetSwapchainImagesKHR"))?;
            for _ in 0..3 {
                self.acquire_sems.push(
                    self.device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                        .map_err(vk_ctx("vkCreateSemaphore"))?,
                );
            }
            for _ in 0..self.images.len() {
                self.render_sems.push(
                    self.device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                        .map_err(vk_ctx("vkCreateSemaphore"))?,
                );
            }
        }
        log::info!(
            "window: {}x{}, {} images, {:?}",
            self.extent.width,
            self.extent.height,
            self.images.len(),
            self.present_mode
        );
        Ok(())
    }

    /// Shows `src` (`sw` x `sh`, `GENERAL` layout, written by earlier work
    /// on the queue), scaled to the window, unless the last show was less
    /// than 1/60 s ago (`force` shows anyway). Returns whether it showed.
    pub fn show(&mut self, src: vk::Image, sw: u32, sh: u32, force: bool) -> Result<bool> {
        self.drain_events();
        let now = std::time::Instant::now();
        if !force
            && self
                .last_show
                .is_some_and(|t| now.duration_since(t).as_secs_f64() < 1.0 / MAX_SHOWS_PER_S)
        {
            return Ok(false);
        }
        let d = self.device.clone();
        let slot = self.ring.next_slot();
        self.ring
            .wait(&d, slot)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let sem = self.acquire_sems[slot];
        // SAFETY: our swapchain; the semaphore is unsignalled (its last wait
        // was in the submission of this ring slot, which is done).
        let acquired = unsafe {
            self.swapchain_fn.acquire_next_image(
                self.swapchain,
                100_000_000,
                sem,
                vk::Fence::null(),
            )
        };
        let index = match acquired {
            Ok((i, _)) => i,
            Err(
                vk::Result::TIMEOUT | vk::Result::NOT_READY | vk::Result::ERROR_OUT_OF_DATE_KHR,
            ) => return Ok(false),
            Err(e) => bail!("vkAcquireNextImageKHR (window) failed: {e}"),
        };
        let dst = self.images[index as usize];
        let (slot, cmd) = self.ring.begin(&d).map_err(|e| anyhow::anyhow!("{e}"))?;
        gpu::image_barrier(
            &d,
            cmd,
            dst,
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::GENERAL,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::empty(),
            vk::AccessFlags::TRANSFER_WRITE,
        );
        gpu::memory_barrier(
            &d,
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::MEMORY_WRITE,
            vk::AccessFlags::TRANSFER_READ,
        );
        gpu::blit(
            &d,
            cmd,
            src,
            sw,
            sh,
            dst,
            self.extent.width,
            self.extent.height,
            vk::Filter::LINEAR,
        );
        gpu::image_barrier(
            &d,
            cmd,
            dst,
            vk::ImageLayout::GENERAL,
            vk::ImageLayout::PRESENT_SRC_KHR,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::AccessFlags::TRANSFER_WRITE,
            vk::AccessFlags::empty(),
        );
        let render = self.render_sems[index as usize];
        self.ring
            .submit(&d, self.queue, slot, sem, render)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let waits = [render];
        let swapchains = [self.swapchain];
        let indices = [index];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: our swapchain and queue; the image was acquired above.
        match unsafe { self.swapchain_fn.queue_present(self.queue, &info) } {
            Ok(_) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {}
            Err(e) => bail!("vkQueuePresentKHR (window) failed: {e}"),
        }
        self.last_show = Some(now);
        self.shown += 1;
        Ok(true)
    }

    /// The keyboard becomes pad 0 of `platform` (plugged in now, nothing
    /// held).
    pub fn set_pads(&mut self, platform: std::sync::Arc<dyn platform::Platform>) {
        platform.pads().set(0, Some(self.keyboard.pad()));
        self.pads = Some(platform);
    }

    /// Types the keys `script` holds from game frame `frame` on into the
    /// window (through the X server): the others are released, these
    /// pressed.
    pub fn type_keys(&mut self, script: &KeyScript, frame: u64) -> Result<()> {
        let Some(keys) = script.at(frame) else {
            return Ok(());
        };
        let send = |sym: u32, press: bool| -> Result<()> {
            let code = self.keymap.keycode(sym).with_context(|| {
                format!("--window-keys: the X server's keymap has no key for keysym {sym:#x}")
            })?;
            let e = KeyEvent {
                response_type: if press { KEY_PRESS } else { KEY_RELEASE },
                detail: code,
                root: self.root,
                event: self.window,
                same_screen: 1,
                ..KeyEvent::default()
            };
            // xcb_send_event takes a 32-byte event.
            let mut bytes = [0u8; 32];
            // SAFETY: KeyEvent is 32 bytes of plain integers (repr(C)).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    (&raw const e).cast::<u8>(),
                    bytes.as_mut_ptr(),
                    size_of::<KeyEvent>().min(32),
                )
            };
            let mask = if press {
                EVENT_MASK_KEY_PRESS
            } else {
                EVENT_MASK_KEY_RELEASE
            };
            // SAFETY: a request on our live connection, to our window.
            unsafe {
                (self.xcb.send_event)(self.conn, 0, self.window, mask, bytes.as_ptr().cast());
            }
            Ok(())
        };
        let held: Vec<u32> = self.keyboard.held().to_vec();
        for sym in held.iter().filter(|s| !keys.contains(s)) {
            send(*sym, false)?;
        }
        for sym in keys.iter().filter(|s| !held.contains(s)) {
            send(*sym, true)?;
        }
        // SAFETY: our live connection.
        unsafe { (self.xcb.flush)(self.conn) };
        // Take them in now: the X server answers within the round trip.
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
        let same = |held: &[u32]| held.len() == keys.len() && keys.iter().all(|k| held.contains(k));
        while !same(self.keyboard.held()) && std::time::Instant::now() < deadline {
            self.drain_events();
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(())
    }

    fn drain_events(&mut self) {
        // SAFETY: events of our live connection, freed with free() as xcb
        // documents; a key event is read as the 32 bytes xcb gives.
        unsafe {
            loop {
                let e = (self.xcb.poll_for_event)(self.conn);
                if e.is_null() {
                    break;
                }
                let kind = *e.cast::<u8>() & 0x7F;
                if kind == KEY_PRESS || kind == KEY_RELEASE {
                    let k = *e.cast::<KeyEvent>();
                    self.key_events += 1;
                    if let Some(sym) = self.keymap.keysym(k.detail)
                        && self.keyboard.key(sym, kind == KEY_PRESS)
                        && let Some(p) = &self.pads
                    {
                        p.pads().set(0, Some(self.keyboard.pad()));
                    }
                }
                libc::free(e);
            }
        }
    }

    /// Reads the window's contents back from the X server, as RGBA8:
    /// `(width, height, pixels)` (for the tests, and `window.png`).
    pub fn grab(&mut self) -> Result<(u32, u32, Vec<u8>)> {
        let d = self.device.clone();
        self.ring.wait_all(&d).map_err(|e| anyhow::anyhow!("{e}"))?;
        // SAFETY: waiting for the queue so every present reached the server.
        unsafe {
            let _ = d.queue_wait_idle(self.queue);
            (self.xcb.flush)(self.conn);
        }
        let (w, h) = (self.extent.width, self.extent.height);
        // SAFETY: a GetImage request on our window; the reply is checked for
        // null and its data length, and freed with free().
        unsafe {
            let cookie = (self.xcb.get_image)(
                self.conn,
                IMAGE_FORMAT_Z_PIXMAP,
                self.window,
                0,
                0,
                w as u16,
                h as u16,
                !0,
            );
            let mut err: *mut c_void = std::ptr::null_mut();
            let reply = (self.xcb.get_image_reply)(self.conn, cookie, &mut err);
            if !err.is_null() {
                libc::free(err);
            }
            if reply.is_null() {
                bail!("xcb_get_image of the window failed");
            }
            let len = (self.xcb.get_image_data_length)(reply) as usize;
            let data = (self.xcb.get_image_data)(reply);
            let depth = (*reply).depth;
            if len != (w * h * 4) as usize {
                libc::free(reply.cast());
                bail!(
                    "xcb_get_image gave {len} bytes for {w}x{h} at depth {depth}; expected 32-bit pixels"
                );
            }
            let bytes = std::slice::from_raw_parts(data, len);
            let rgba = bytes
                .chunks_exact(4)
                .flat_map(|p| [p[2], p[1], p[0], 255])
                .collect();
            libc::free(reply.cast());
            Ok((w, h, rgba))
        }
    }

    /// The window's present mode (MAILBOX or IMMEDIATE where offered).
    pub fn present_mode(&self) -> vk::PresentModeKHR {
        self.present_mode
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        let d = self.device.clone();
        // SAFETY: waiting for the device, then destroying our objects in
        // reverse order of creation; then the X window and connection.
        unsafe {
            let _ = d.device_wait_idle();
            self.ring.destroy(&d);
            for s in self.acquire_sems.iter().chain(&self.render_sems) {
                d.destroy_semaphore(*s, None);
            }
            if self.swapchain != vk::SwapchainKHR::null() {
                self.swapchain_fn.destroy_swapchain(self.swapchain, None);
            }
            self.surface_fn.destroy_surface(self.surface, None);
            (self.xcb.destroy_window)(self.conn, self.window);
            (self.xcb.flush)(self.conn);
            (self.xcb.disconnect)(self.conn);
            libc::dlclose(self.xcb.lib);
        }
    }
}
