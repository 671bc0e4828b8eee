//! PNG reading and writing (RGBA8).

use std::path::Path;

use anyhow::{Context, Result, bail};

/// Reads a PNG as tightly packed RGBA8: (pixels, width, height).
pub fn read_png(path: &Path) -> Result<(Vec<u8>, u32, u32)> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec
        .read_info()
        .with_context(|| format!("{}: not a PNG", path.display()))?;
    let mut buf = vec![0; reader.output_buffer_size().context("PNG too large")?];
    let info = reader
        .next_frame(&mut buf)
        .with_context(|| format!("{}: corrupt PNG data", path.display()))?;
    let (w, h) = (info.width, info.height);
    let px = (w * h) as usize;
    let data = &buf[..info.buffer_size()];
    let rgba = match info.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::Rgb => data
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        png::ColorType::Indexed => bail!("{}: indexed PNG not expanded", path.display()),
    };
    if rgba.len() != px * 4 {
        bail!(
            "{}: decoded {} bytes for {w}x{h}",
            path.display(),
            rgba.len()
        );
    }
    Ok((rgba, w, h))
}

/// Writes RGBA8 pixels as a PNG.
pub fn write_png(path: &Path, rgba: &[u8], width: u32, height: u32) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .with_context(|| format!("writing {}", path.display()))?;
    w.write_image_data(rgba)
        .with_context(|| format!("writing {}", path.display()))?;
    w.finish()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Swaps R and B (RGBA <-> BGRA).
pub fn swap_rb(mut p: Vec<u8>) -> Vec<u8> {
    for c in p.chunks_exact_mut(4) {
        c.swap(0, 2);
    }
    p
}
