//! The payload's application: settings, param.json, splash screen,
//! VideoOut output mode, Vulkan on VK_KHR_display, and the title (the
//! recompiled demo on the console's platform layer, or the built-in scene)
//! through the game loop and present loop host-sim runs.

use super::display::Ps5Display;
use super::{logger, pad, videoout, vulkan};
use crate::display_mode::OutputPlan;
use crate::khr_display;
use crate::param_json::{self, PARAM_JSON_ENV};
use crate::runtime_platform::Ps5Platform;
use crate::settings::{DEFAULT_RUN_SECONDS, SETTINGS_PATH, Settings, TitleChoice};
use ash::vk;
use framegen_present::{Display as _, PresentConfig, PresentLoop, RunTotals};
use platform::Platform;
use std::path::Path;
use std::sync::Arc;
use titles::demo::{DemoTiming, DemoTitle, DemoTitleOptions};
use titles::scene::{BuiltinScene, SceneOptions};
use titles::{GameLoop, GameRate, Title, multiplier_for};

/// The title id the payload was built for (from `sce_sys/param.json` at
/// build time, when it exists); the settings' `title_id` overrides it.
pub const BUILT_TITLE_ID: Option<&str> = option_env!("CELLPORT_TITLE_ID");

/// What start-up found out about the title.
#[derive(Debug, Clone)]
pub struct TitleInfo {
    /// The param.json the driver is pointed at, if one opened.
    pub param_json: Option<std::path::PathBuf>,
    /// Whether it declares 120 Hz.
    pub declares_120hz: bool,
}

/// Sets `PS5VK_PARAM_JSON` to the first param.json that opens, before the
/// Vulkan driver starts, and reads whether it declares 120 Hz. A param.json
/// that opens but is malformed is an error naming the file and field.
pub fn find_param_json(settings: &Settings) -> Result<TitleInfo, param_json::ParamJsonError> {
    let id = settings.title_id.as_deref().or(BUILT_TITLE_ID);
    let candidates = param_json::candidates(id);
    let Some(path) = param_json::choose(&candidates, |p| std::fs::File::open(p).is_ok()) else {
        log::warn!(
            "no param.json opens (tried {candidates:?}): the driver will not offer 119.88 Hz"
        );
        return Ok(TitleInfo {
            param_json: None,
            declares_120hz: false,
        });
    };
    // SAFETY: the environment is written on the only thread, before the
    // driver or any other thread starts.
    unsafe { std::env::set_var(PARAM_JSON_ENV, path) };
    let text = std::fs::read_to_string(path).map_err(|e| param_json::ParamJsonError {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let decl = param_json::parse(path, &text)?;
    log::info!(
        "{PARAM_JSON_ENV}={}: title {}, attribute3 {:#x} ({})",
        path.display(),
        decl.title_id,
        decl.attribute3,
        if decl.declares_120hz() {
            "declares 120 Hz"
        } else {
            "no 120 Hz"
        }
    );
    Ok(TitleInfo {
        param_json: Some(path.to_path_buf()),
        declares_120hz: decl.declares_120hz(),
    })
}

/// The payload's main: returns the process exit code.
pub fn run() -> i32 {
    logger::init(log::LevelFilter::Info);
    log::info!(
        "cellport PS5 payload {} starting",
        env!("CARGO_PKG_VERSION")
    );
    match run_inner() {
        Ok(()) => 0,
        Err(e) => {
            log::error!("{e}");
            1
        }
    }
}

fn run_inner() -> Result<(), Box<dyn std::error::Error>> {
    let settings = Settings::load(Path::new(SETTINGS_PATH))?;
    log::info!("settings: {settings:?}");
    let title = find_param_json(&settings)?;
    // The runtime's platform: guest memory, threads, files in the sandbox.
    let platform = Arc::new(Ps5Platform::new(&settings.fs_root)?);
    if settings.title == TitleChoice::Demo
        && settings.pad_script.is_none()
        && let Err(e) = pad::start(platform.clone())
    {
        log::warn!("{e}: the demo sees no controller");
    }
    if let Err(e) = videoout::hide_splash_screen() {
        log::warn!("{e}");
    }
    let mut port = videoout::VideoOut::open()?;
    let plan = port.configure(title.declares_120hz)?;
    log::info!("VideoOut port {}: {plan:?}", port.handle());
    let result = present(&settings, platform, plan == OutputPlan::Configure120);
    port.restore();
    result
}

/// The title the settings ask for, on the present loop's device.
fn make_title(
    settings: &Settings,
    device: &ash::Device,
    props: &vk::PhysicalDeviceMemoryProperties,
    platform: Arc<dyn Platform>,
) -> anyhow::Result<Box<dyn Title>> {
    Ok(match settings.title {
        TitleChoice::Demo => Box::new(DemoTitle::start(
            device,
            props,
            DemoTitleOptions {
                lifted: !settings.interpreter,
                pad_script: settings.pad_script.clone(),
                fs_root: settings.fs_root.clone(),
                platform: Some(platform),
                // The display's clock is real time.
                timing: DemoTiming::Measured,
                ..DemoTitleOptions::default()
            },
        )?),
        TitleChoice::Scene => Box::new(BuiltinScene::new(
            device,
            props,
            SceneOptions {
                width: 1280,
                height: 720,
                rate: GameRate::Fixed(60.0),
                cut_every_s: 4.0,
                settings: framegen_present::VideoOutSettings::default(),
            },
        )?),
    })
}

/// Starts the dump writer (framegen-dump's: host-sim's format, a bounded
/// queue and its own thread, so it never stalls presenting) when the
/// settings turn dumps on.
fn start_dump(
    settings: &Settings,
    meta: &serde_json::Value,
) -> Result<Option<framegen_dump::DumpWriter>, Box<dyn std::error::Error>> {
    if !settings.dumps {
        return Ok(None);
    }
    let dir = &settings.dump_dir;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let path = crate::settings::dump_file(dir, now);
    let w = framegen_dump::DumpWriter::create(&path, meta, framegen_dump::WriterConfig::default())?;
    log::info!("dumping to {}", path.display());
    Ok(Some(w))
}

/// Brings Vulkan up on the display (instance, display and mode, surface,
/// device, swapchain) and runs the shared present loop on it.
fn present(
    settings: &Settings,
    platform: Arc<Ps5Platform>,
    allow_120: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let (entry, source) = vulkan::entry(settings.vulkan_module.as_deref())?;
    log::info!("Vulkan entry point: {source:?}");
    let exts: Vec<*const std::ffi::c_char> = khr_display::INSTANCE_EXTENSIONS
        .iter()
        .map(|e| e.as_ptr())
        .collect();
    let app = vk::ApplicationInfo::default()
        .application_name(c"cellport")
        .api_version(vk::make_api_version(0, 1, 1, 0));
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&exts);
    // SAFETY: valid create info; the instance is destroyed below.
    let instance = unsafe { entry.create_instance(&info, None) }?;
    let surface_fns = ash::khr::surface::Instance::new(&entry, &instance);
    let mut surface = vk::SurfaceKHR::null();
    let outcome = (|| -> Result<(), Box<dyn std::error::Error>> {
        // SAFETY: the live instance.
        let pdevs = unsafe { instance.enumerate_physical_devices() }?;
        let pdev = *pdevs
            .first()
            .ok_or("the Vulkan driver lists no physical device")?;
        let display = ash::khr::display::Instance::new(&entry, &instance);
        // SAFETY: the live instance and its physical device.
        let choice = unsafe { khr_display::choose_display(&display, pdev, allow_120) }?;
        log::info!(
            "display modes: {}; chosen {}",
            choice
                .offered
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            choice.info
        );
        // SAFETY: as above; the surface is destroyed before the instance.
        surface = unsafe { khr_display::create_surface(&display, &choice) }?;
        run_on_device(
            settings,
            platform,
            &instance,
            &surface_fns,
            pdev,
            surface,
            &choice,
        )
    })();
    // SAFETY: nothing made from the surface or the instance is alive any more.
    unsafe {
        if surface != vk::SurfaceKHR::null() {
            surface_fns.destroy_surface(surface, None);
        }
        instance.destroy_instance(None);
    }
    outcome
}

/// Creates the device, the display and the present loop, runs the title
/// through the game loop for the settings' `run_seconds` (or until the
/// title ends), and takes it all down.
fn run_on_device(
    settings: &Settings,
    platform: Arc<Ps5Platform>,
    instance: &ash::Instance,
    surface_fns: &ash::khr::surface::Instance,
    pdev: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    choice: &khr_display::DisplayChoice,
) -> Result<(), Box<dyn std::error::Error>> {
    // SAFETY: the caller's live instance, physical device and surface.
    let families = unsafe { instance.get_physical_device_queue_family_properties(pdev) };
    let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
    let family = (0..families.len() as u32)
        .find(|&i| {
            families[i as usize].queue_flags.contains(wanted)
                // SAFETY: as above.
                && unsafe { surface_fns.get_physical_device_surface_support(pdev, i, surface) }.unwrap_or(false)
        })
        .ok_or("no queue family does graphics, compute and presenting to the display")?;
    // SAFETY: as above.
    let props = unsafe { instance.get_physical_device_properties(pdev) };
    let driver = props
        .device_name_as_c_str()
        .unwrap_or(c"?")
        .to_string_lossy()
        .into_owned();
    let features =
        vk::PhysicalDeviceFeatures::default().shader_storage_image_extended_formats(true);
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let dev_exts = [ash::khr::swapchain::NAME.as_ptr()];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&dev_exts)
        .enabled_features(&features);
    // SAFETY: valid create info; the device is destroyed below.
    let device = unsafe { instance.create_device(pdev, &info, None) }?;
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        // SAFETY: the live physical device and surface.
        let (caps, formats, modes) = unsafe {
            (
                surface_fns.get_physical_device_surface_capabilities(pdev, surface)?,
                surface_fns.get_physical_device_surface_formats(pdev, surface)?,
                surface_fns.get_physical_device_surface_present_modes(pdev, surface)?,
            )
        };
        let config = khr_display::swapchain_config(&caps, &formats, &modes, choice.info)?;
        // SAFETY: the live device.
        let queue = unsafe { device.get_device_queue(family, 0) };
        // SAFETY: live device, queue and surface; the config is the surface's.
        let mut disp = unsafe {
            Ps5Display::new(instance, &device, queue, surface, choice, &config, &driver)
        }?;
        log::info!("display: {:?}", disp.info());
        let ctx = framegen::VulkanContext {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: pdev,
            queue_family_index: family,
            queue,
            enabled_features: features,
        };
        // SAFETY: the live instance and physical device.
        let mem_props = unsafe { instance.get_physical_device_memory_properties(pdev) };
        let mut title = make_title(settings, &device, &mem_props, platform)?;
        let multiplier = settings.multiplier.unwrap_or_else(|| {
            multiplier_for(choice.info.hz(), title.frame_limit_fps().unwrap_or(60.0))
        });
        let meta = serde_json::json!({
            "producer": format!("cellport-ps5 {}", env!("CARGO_PKG_VERSION")),
            "display": {
                "width": choice.info.width,
                "height": choice.info.height,
                "refresh_hz": choice.info.hz(),
                "images": disp.info().images,
                "format": format!("{:?}", config.format),
                "latch_times": "estimated (FIFO model)",
            },
            "modes_offered": choice.offered.iter().map(|m| m.hz()).collect::<Vec<_>>(),
            "title": title.describe(),
            "multiplier": multiplier,
            "device": driver,
        });
        let writer = start_dump(settings, &meta)?;
        let pl = PresentLoop::new(
            &ctx,
            &disp,
            PresentConfig {
                multiplier,
                ..PresentConfig::default()
            },
            writer,
        )?;
        let seconds = match (settings.run_seconds, settings.title) {
            (Some(s), _) => s,
            (None, TitleChoice::Demo) => f64::INFINITY,
            (None, TitleChoice::Scene) => DEFAULT_RUN_SECONDS,
        };
        log::info!(
            "{} at {}, frame generation x{multiplier}, {}",
            title.name(),
            choice.info,
            if seconds.is_finite() {
                format!("{seconds} s")
            } else {
                "until it quits (START+SELECT: OPTIONS + touch pad)".to_owned()
            }
        );
        let totals = run_title(&ctx, &mut disp, pl, &mut *title, seconds);
        let end = title.end();
        log::info!("title end: {end}");
        drop(title);
        log::info!("run: {:?}", totals?);
        Ok(())
    })();
    // SAFETY: everything made from the device was dropped above.
    unsafe {
        let _ = device.device_wait_idle();
        device.destroy_device(None);
    }
    result
}

/// Runs `title` through the shared game loop until `seconds` of display
/// clock have passed or it ends, then finishes the present loop (every
/// present shown, the dump's end record).
fn run_title(
    ctx: &framegen::VulkanContext,
    display: &mut Ps5Display,
    mut pl: PresentLoop,
    title: &mut dyn Title,
    seconds: f64,
) -> Result<RunTotals, Box<dyn std::error::Error>> {
    let mut game = GameLoop::new(&ctx.device, ctx.queue_family_index, ctx.queue)?;
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        while display.now_s() < seconds {
            let Some(report) = game.frame(title, &mut pl, display)? else {
                log::info!(
                    "the title ended after {} frames ({:.1} s)",
                    game.frames(),
                    display.now_s()
                );
                break;
            };
            if let Some(s) = &report.status {
                log::info!("{s}");
            }
        }
        Ok(())
    })();
    let totals = match result {
        Ok(()) => pl.finish(display).map_err(Into::into),
        Err(e) => {
            drop(pl);
            Err(e)
        }
    };
    game.destroy();
    totals
}
