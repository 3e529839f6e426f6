// SPDX-License-Identifier: GPL-2.0

//! QEMU's `edu` device: its DMA registers and how a transfer is run.

use core::sync::atomic::{AtomicBool, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::msleep,
    dev_info,
    devres::Devres,
    dma::{DmaAddr, DmaMask},
    error::code::*,
    io_mem::IoMem,
};

/// DMA source address register.
pub(crate) const REG_DMA_SRC: usize = 0x80;
/// DMA destination address register.
pub(crate) const REG_DMA_DST: usize = 0x88;
/// DMA byte count register.
pub(crate) const REG_DMA_CNT: usize = 0x90;
/// DMA command register.
pub(crate) const REG_DMA_CMD: usize = 0x98;
/// Command: start; reads back set while the transfer runs.
pub(crate) const DMA_RUN: u32 = 1 << 0;
/// Command: edu -> RAM (else RAM -> edu).
pub(crate) const DMA_TO_RAM: u32 = 1 << 1;

/// edu's default DMA mask: 28 bits.
pub(crate) const DMA_MASK: DmaMask = DmaMask::new::<28>();
/// edu's internal buffer; QEMU 7.2 aborts unless start + count < 0x41000.
pub(crate) const EDU_BUF_ADDR: u64 = 0x40000;

/// edu starts a transfer 100 ms of virtual time after the kick.
pub(crate) const DMA_LATENCY_MS: u32 = 100;
/// How long a transfer may take before the device counts as wedged.
pub(crate) const DMA_TIMEOUT_MS: u32 = 5000;

/// An address edu can DMA to or from: RAM through a device-owned mapping
/// (borrowed from it), or its internal buffer.
pub(crate) enum EduAddr<'m> {
    /// A mapping the device owns.
    Ram(DmaAddr<'m>),
    /// An address in edu's own buffer.
    Internal(u64),
}

/// A bound edu: its registers, its device for the DMA API, its state.
pub(crate) struct Edu {
    /// BAR 0, revoked when the device is unbound.
    pub(crate) mmio: Devres<IoMem>,
    /// The device, for the DMA API and for logging.
    pub(crate) dev: kernel::dma::Device,
    /// A transfer never finished: edu cannot abort one, so it may still
    /// write any buffer it was given. Those stay mapped for good.
    pub(crate) wedged: AtomicBool,
}

impl Edu {
    pub(crate) fn is_wedged(&self) -> bool {
        self.wedged.load(Ordering::Relaxed)
    }

    /// The registers, or `ENODEV` once the device was unbound.
    fn regs(&self) -> Result<kernel::devres::Guard<'_, IoMem>> {
        self.mmio.try_access().ok_or(ENODEV)
    }

    fn set_addr(&self, mmio: &IoMem, addr: EduAddr<'_>, reg: usize) -> Result {
        match addr {
            EduAddr::Ram(a) => mmio.write_dma_addr(a, reg),
            EduAddr::Internal(a) => mmio.write64(a, reg),
        }
    }

    /// Runs one transfer and sleeps until it has landed.
    pub(crate) fn dma_run(
        &self,
        src: EduAddr<'_>,
        dst: EduAddr<'_>,
        count: usize,
        cmd: u32,
    ) -> Result {
        self.program(src, dst, count)?;
        self.start(cmd)
    }

    /// Programs a transfer without starting it.
    pub(crate) fn program(&self, src: EduAddr<'_>, dst: EduAddr<'_>, count: usize) -> Result {
        let mmio = self.regs()?;
        self.set_addr(&mmio, src, REG_DMA_SRC)?;
        self.set_addr(&mmio, dst, REG_DMA_DST)?;
        mmio.write32(u32::try_from(count).map_err(|_| EINVAL)?, REG_DMA_CNT)
    }

    /// Starts the programmed transfer and sleeps until it has landed.
    pub(crate) fn start(&self, cmd: u32) -> Result {
        let mmio = self.regs()?;
        mmio.write32(cmd | DMA_RUN, REG_DMA_CMD)?;
        msleep(DMA_LATENCY_MS);
        let mut waited = 0;
        while mmio.read32(REG_DMA_CMD)? & DMA_RUN != 0 {
            if waited >= DMA_TIMEOUT_MS {
                dev_info!(
                    self.dev,
                    "bouncelab: error driver=rust edu DMA timeout, leaking the ring\n"
                );
                self.wedged.store(true, Ordering::Relaxed);
                return Err(ETIMEDOUT);
            }
            msleep(1);
            waited += 1;
        }
        Ok(())
    }
}
