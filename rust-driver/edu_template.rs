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
//! Every buffer whose address edu is given is lent first ([`Mapping::lend`]
//! makes an [`InFlight`]), and comes back only with proof that edu is done
//! with it ([`Idle`]). It keeps one receive buffer in flight until the
//! device is unbound (its address programmed into edu, as a driver hands
//! over its receive ring), tied to the binding through [`Devres`]; at unbind
//! it turns bus mastering off first, then unmaps it, and says so:
//!
//! ```text
//! bouncelab: result driver=template scenario=unbind observed=ok bus_master=0 unmapped=1
//! ```

use core::sync::atomic::{AtomicBool, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::msleep,
    dev_info,
    device::Device,
    devres::Devres,
    // `dma::Device`: the DMA mask setter of `pci::Device`.
    dma::{self, Device as _, DmaMask, FromDevice, Idle, InFlight, Mapping, ToDevice},
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

/// Per-device data, dropped on unbind.
///
/// `drop` runs before the fields are dropped: it quiesces the device (bus
/// mastering off), and only then takes the receive buffer out of flight and
/// unmaps it. The fields then drop in order: the registers before the
/// device is disabled. (An in-flight mapping dropped without that proof is
/// leaked, never unmapped: `io_tlb_used` would not come back, and the
/// `template` boot fails.)
struct Bound {
    rx: Devres<Option<InFlight<FromDevice>>>,
    _mmio: Devres<IoMem>,
    enabled: pci::Enabled,
}

impl Drop for Bound {
    fn drop(&mut self) {
        let idle = self.enabled.quiesce();
        let dev = self.enabled.device();
        // Read back from the device: is bus mastering off at the unmap?
        let master = dev.is_bus_master().unwrap_or(true);
        let unmapped = match self.rx.try_access_mut().and_then(|mut rx| rx.take()) {
            Some(rx) => rx.complete(&idle).is_ok(),
            None => false,
        };
        dev_info!(
            dev,
            "bouncelab: result driver=template scenario=unbind observed={} bus_master={} unmapped={}\n",
            if !master && unmapped { "ok" } else { "LIVE-DMA" },
            u8::from(master),
            u8::from(unmapped)
        );
        CLAIMED.store(false, Ordering::Release);
    }
}

struct Template;

impl pci::Driver for Template {
    type Data = Bound;
    const NAME: &'static [u8] = b"edu_template\0";
    const IDS: &'static [(u16, u16)] = &[(0x1234, 0x11e8)];

    fn probe(pdev: &pci::Device, dev: &dma::Bound<'_>) -> Result<Bound> {
        if CLAIMED.swap(true, Ordering::AcqRel) {
            return Err(EBUSY);
        }
        probe_claimed(pdev, dev).map_err(|e| {
            CLAIMED.store(false, Ordering::Release);
            e
        })
    }
}

/// `dev` is `pdev` for the DMA API, with the proof that the driver is bound:
/// mappings and `Devres` need it.
fn probe_claimed(pdev: &pci::Device, dev: &dma::Bound<'_>) -> Result<Bound> {
    let enabled = pdev.enable()?;
    let mmio = pdev.iomap_region(dev, 0, b"edu_template\0")?;
    // SAFETY: in probe, before this driver maps anything for the device.
    unsafe { pdev.dma_set_mask_and_coherent(DmaMask::new::<28>())? };
    // A transfer an earlier binding left pending (one that wedged) would
    // run into memory freed at its unbind once bus mastering is on: turn
    // it off and wait until edu is seen stopped; the transfer then ends
    // without reaching memory.
    {
        let regs = mmio.try_access().ok_or(ENODEV)?;
        wait_stopped(&enabled, &regs)?;
    }
    // SAFETY: edu runs no transfer (`DMA_RUN` read back clear just above,
    // with bus mastering off), and starts one only when its DMA command
    // register (0x98) is written, which this driver does only after
    // writing the transfer's memory address from a live `InFlight`: an
    // address that an earlier driver or bind left in edu's registers is
    // never used.
    unsafe { pdev.set_master() };

    // Registers through a guard: `None` once the device was unbound.
    let regs = mmio.try_access().ok_or(ENODEV)?;
    let differ = roundtrip(dev, &regs)?;
    drop(regs);
    dev_info!(
        pdev,
        "bouncelab: result driver=template scenario=roundtrip observed={} bytes={} differ={}\n",
        if differ == 0 { "ok" } else { "CORRUPT" },
        LEN,
        differ
    );

    // A buffer the device keeps until unbind, e.g. a receive ring: lent to
    // edu, its address programmed (never started here).
    let rx = Mapping::<FromDevice, _>::map(dev, pattern(0)?)?.lend();
    let regs = mmio.try_access().ok_or(ENODEV)?;
    regs.write_dma_dst(rx.dma_addr(), REG_DST)?;
    drop(regs);
    Ok(Bound {
        rx: Devres::new(dev, Some(rx))?,
        _mmio: mmio,
        enabled,
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
///
/// On an error the in-flight mapping is dropped: edu cannot abort a
/// transfer, so it is leaked, never unmapped under it.
fn roundtrip(dev: &dma::Bound<'_>, mmio: &IoMem) -> Result<usize> {
    // The CPU fills the buffer before mapping it; the device then owns it,
    // and is given its address (lent).
    let tx = Mapping::<ToDevice, _>::map(dev, pattern(0x5a)?)?.lend();
    mmio.write_dma_src(tx.dma_addr(), REG_SRC)?;
    mmio.write64(EDU_BUF, REG_DST)?;
    let done = transfer(dev.device(), mmio, 0)?;
    let sent = tx.complete(&done)?.unmap();

    let rx = Mapping::<FromDevice, _>::map(dev, pattern(0)?)?.lend();
    mmio.write64(EDU_BUF, REG_SRC)?;
    mmio.write_dma_dst(rx.dma_addr(), REG_DST)?;
    let done = transfer(dev.device(), mmio, CMD_TO_RAM)?;
    // The CPU may read the buffer only once edu is done with it and it was
    // synced for the CPU.
    let rx = rx.complete(&done)?.sync_for_cpu();
    let differ = rx
        .as_slice()
        .iter()
        .zip(sent.iter())
        .filter(|(a, b)| a != b)
        .count();
    drop(rx.unmap());
    Ok(differ)
}

/// Turns bus mastering off and waits (at most 5 s) until edu runs no
/// transfer: call it before `set_master()`.
fn wait_stopped(enabled: &pci::Enabled, mmio: &IoMem) -> Result {
    // Only the effect is needed here, not the proof.
    let _ = enabled.quiesce();
    for _ in 0..5000 {
        if mmio.read32(REG_CMD)? & CMD_RUN == 0 {
            return Ok(());
        }
        msleep(1);
    }
    Err(EBUSY)
}

/// Runs the programmed edu transfer of `LEN` bytes and waits (at most 5 s)
/// for it; returns the proof that edu is done with the addresses it holds.
fn transfer<'a>(dev: &'a Device, mmio: &IoMem, cmd: u32) -> Result<Idle<'a>> {
    mmio.write32(LEN as u32, REG_CNT)?;
    mmio.write32(cmd | CMD_RUN, REG_CMD)?;
    for _ in 0..5000 {
        if mmio.read32(REG_CMD)? & CMD_RUN == 0 {
            // SAFETY: edu reads or writes RAM only while a transfer runs,
            // and this one ended (`CMD_RUN` read back clear). It starts one
            // only when `CMD_RUN` is written, which this driver does only
            // here, after programming lent mappings' addresses.
            return Ok(unsafe { Idle::assume(dev) });
        }
        msleep(1);
    }
    Err(ETIMEDOUT)
}
