// SPDX-License-Identifier: GPL-2.0

//! Template: a Rust PCI driver doing streaming DMA with QEMU's `edu`.
//!
//! Copy it to start a driver of your own (see "Prototype your own driver" in
//! `rust-driver/README.md`). At probe it maps a buffer `ToDevice`, lets edu
//! copy it into its internal buffer, maps a second one `FromDevice`, lets edu
//! copy the data back, and compares; one result line says what it saw:
//!
//! ```text
//! bouncelab: result driver=template scenario=roundtrip observed=ok bytes=256 differ=0
//! ```
//!
//! It keeps one device-owned mapping until the device is unbound, tied to
//! the binding through [`Devres`], as a driver keeps its receive ring.

use core::sync::atomic::{AtomicBool, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::msleep,
    dev_info,
    devres::Devres,
    dma::{self, DeviceOwned, DmaAddr, DmaMask, FromDevice, Mapping, ToDevice},
    error::code::*,
    io_mem::IoMem,
    pci,
};

module! {
    type: TemplateModule,
    name: b"edu_template",
    author: b"bouncelab developers <dev@bouncelab.invalid>",
    description: b"Template Rust driver: streaming DMA round trip through QEMU's edu",
    license: b"GPL",
}

/// edu's DMA registers: source, destination, byte count, command.
const REG_SRC: usize = 0x80;
const REG_DST: usize = 0x88;
const REG_CNT: usize = 0x90;
const REG_CMD: usize = 0x98;
/// Command bits: start (reads back set while running); edu -> RAM.
const CMD_RUN: u32 = 1;
const CMD_TO_RAM: u32 = 2;
/// edu's internal buffer, as the device sees it.
const EDU_BUF: u64 = 0x40000;
const LEN: usize = 256;

/// Only the first edu the template probes; the others get `EBUSY`.
static CLAIMED: AtomicBool = AtomicBool::new(false);

struct TemplateModule {
    _reg: pci::Registration<Template>,
}

impl kernel::Module for TemplateModule {
    fn init(module: &'static ThisModule) -> Result<Self> {
        Ok(Self {
            _reg: pci::Registration::new(module)?,
        })
    }
}

/// Per-device data, dropped on unbind. Fields drop in order: the mapping
/// and the registers before the device is disabled.
struct Bound {
    _rx: Devres<Mapping<FromDevice, DeviceOwned>>,
    _mmio: Devres<IoMem>,
    _enabled: pci::Enabled,
}

impl Drop for Bound {
    fn drop(&mut self) {
        CLAIMED.store(false, Ordering::Release);
    }
}

struct Template;

impl pci::Driver for Template {
    type Data = Bound;
    const NAME: &'static [u8] = b"edu_template\0";
    const IDS: &'static [(u16, u16)] = &[(0x1234, 0x11e8)];

    fn probe(pdev: &pci::Device) -> Result<Bound> {
        if CLAIMED.swap(true, Ordering::AcqRel) {
            return Err(EBUSY);
        }
        probe_claimed(pdev).map_err(|e| {
            CLAIMED.store(false, Ordering::Release);
            e
        })
    }
}

fn probe_claimed(pdev: &pci::Device) -> Result<Bound> {
    let enabled = pdev.enable()?;
    let mmio = pdev.iomap_region(0, b"edu_template\0")?;
    // SAFETY: in probe, before this driver maps anything for the device.
    unsafe { pdev.dma_set_mask_and_coherent(DmaMask::new::<28>())? };
    pdev.set_master();
    let dev = pdev.dma_device()?;

    // Registers through a guard: `None` once the device was unbound.
    let regs = mmio.try_access().ok_or(ENODEV)?;
    let differ = roundtrip(&dev, &regs)?;
    drop(regs);
    dev_info!(
        pdev,
        "bouncelab: result driver=template scenario=roundtrip observed={} bytes={} differ={}\n",
        if differ == 0 { "ok" } else { "CORRUPT" },
        LEN,
        differ
    );

    // A mapping the device keeps until unbind, e.g. a receive buffer.
    let rx = Mapping::<FromDevice, _>::map(&dev, pattern(0)?)?;
    Ok(Bound {
        _rx: Devres::new(&dev, rx)?,
        _mmio: mmio,
        _enabled: enabled,
    })
}

/// `LEN` bytes: `seed`, `seed + 1`, ...
fn pattern(seed: u8) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(LEN)?;
    for i in 0..LEN {
        v.try_push(seed.wrapping_add(i as u8))?;
    }
    Ok(v)
}

/// Copies a pattern to edu and back; returns how many bytes came back wrong.
fn roundtrip(dev: &dma::Device, mmio: &IoMem) -> Result<usize> {
    // The CPU fills the buffer before mapping it; the device then owns it.
    let tx = Mapping::<ToDevice, _>::map(dev, pattern(0x5a)?)?;
    if let Err(e) = transfer(mmio, Addr::Ram(tx.dma_addr()), Addr::Edu(EDU_BUF), 0) {
        // edu cannot abort a transfer: never unmap under it, leak instead.
        core::mem::forget(tx);
        return Err(e);
    }
    let sent = tx.unmap();

    let rx = Mapping::<FromDevice, _>::map(dev, pattern(0)?)?;
    if let Err(e) = transfer(
        mmio,
        Addr::Edu(EDU_BUF),
        Addr::Ram(rx.dma_addr()),
        CMD_TO_RAM,
    ) {
        core::mem::forget(rx);
        return Err(e);
    }
    // The CPU may read the buffer only after syncing it for the CPU.
    let rx = rx.sync_for_cpu();
    let differ = rx
        .as_slice()
        .iter()
        .zip(sent.iter())
        .filter(|(a, b)| a != b)
        .count();
    drop(rx.unmap());
    Ok(differ)
}

/// A transfer end: RAM through a mapping the device owns, or edu's buffer.
enum Addr<'a> {
    Ram(DmaAddr<'a>),
    Edu(u64),
}

fn set(mmio: &IoMem, addr: Addr<'_>, reg: usize) -> Result {
    match addr {
        Addr::Ram(a) => mmio.write_dma_addr(a, reg),
        Addr::Edu(a) => mmio.write64(a, reg),
    }
}

/// Runs one edu transfer of `LEN` bytes and waits (at most 5 s) for it.
fn transfer(mmio: &IoMem, src: Addr<'_>, dst: Addr<'_>, cmd: u32) -> Result {
    set(mmio, src, REG_SRC)?;
    set(mmio, dst, REG_DST)?;
    mmio.write32(LEN as u32, REG_CNT)?;
    mmio.write32(cmd | CMD_RUN, REG_CMD)?;
    for _ in 0..5000 {
        if mmio.read32(REG_CMD)? & CMD_RUN == 0 {
            return Ok(());
        }
        msleep(1);
    }
    Err(ETIMEDOUT)
}
