// SPDX-License-Identifier: GPL-2.0

//! QEMU's `edu` device: its DMA registers and how a transfer is run.

use core::sync::atomic::{AtomicBool, Ordering};
use kernel::prelude::*;
use kernel::{
    delay::msleep,
    dev_info,
    devres::Devres,
    dma::{DeviceReads, DeviceWrites, DmaMask, Idle, InFlight, Kept},
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

/// A bound edu: its registers, its device for the DMA API, its state.
pub(crate) struct Edu {
    /// BAR 0, revoked when the device is unbound.
    pub(crate) mmio: Devres<IoMem>,
    /// The device, for the DMA API and for logging.
    pub(crate) dev: kernel::device::Device,
    /// A transfer never finished: edu cannot abort one, so it may still
    /// use any address it was given.
    pub(crate) wedged: AtomicBool,
    /// The in-flight mappings of transfers that never finished: released
    /// when the device is unbound, after bus mastering is turned off.
    pub(crate) kept: Vec<Kept>,
}

impl Edu {
    pub(crate) fn is_wedged(&self) -> bool {
        self.wedged.load(Ordering::Relaxed)
    }

    /// The registers, or `ENODEV` once the device was unbound.
    fn regs(&self) -> Result<kernel::devres::Guard<'_, IoMem>> {
        self.mmio.try_access().ok_or(ENODEV)
    }

    /// Programs a RAM -> edu transfer from `src` (lent: edu holds its
    /// address from now on) to `dst` in edu's buffer, without starting it.
    pub(crate) fn program_from_ram<D: DeviceReads>(
        &self,
        src: &InFlight<D>,
        dst: u64,
        count: usize,
    ) -> Result {
        let mmio = self.regs()?;
        mmio.write_dma_src(src.dma_addr(), REG_DMA_SRC)?;
        mmio.write64(dst, REG_DMA_DST)?;
        mmio.write32(u32::try_from(count).map_err(|_| EINVAL)?, REG_DMA_CNT)
    }

    /// Programs an edu -> RAM transfer from `src` in edu's buffer to `dst`
    /// (lent: edu holds its address from now on), without starting it.
    pub(crate) fn program_to_ram<D: DeviceWrites>(
        &self,
        src: u64,
        dst: &InFlight<D>,
        count: usize,
    ) -> Result {
        let mmio = self.regs()?;
        mmio.write64(src, REG_DMA_SRC)?;
        mmio.write_dma_dst(dst.dma_addr(), REG_DMA_DST)?;
        mmio.write32(u32::try_from(count).map_err(|_| EINVAL)?, REG_DMA_CNT)
    }

    /// Waits until edu runs no transfer, with bus mastering off: a transfer
    /// a previous binding left pending (one that wedged, at unbind) then
    /// ends without reaching memory (its accesses are dropped). Call it
    /// before [`kernel::pci::Device::set_master`]; `EBUSY` if edu is still
    /// running after [`DMA_TIMEOUT_MS`].
    pub(crate) fn wait_stopped(&self, enabled: &kernel::pci::Enabled) -> Result {
        let mmio = self.regs()?;
        // Bus mastering off: the proof is not needed, only the effect.
        let _ = enabled.quiesce();
        let mut waited = 0;
        while mmio.read32(REG_DMA_CMD)? & DMA_RUN != 0 {
            if waited >= DMA_LATENCY_MS + DMA_TIMEOUT_MS {
                return Err(EBUSY);
            }
            msleep(1);
            waited += 1;
        }
        if waited > 0 {
            dev_info!(
                self.dev,
                "bouncelab: edu ran a pending transfer for {} ms before bus mastering was turned on\n",
                waited
            );
        }
        Ok(())
    }

    /// Starts the programmed transfer and returns at once, without a proof:
    /// the transfer is left pending (the `stale` test).
    pub(crate) fn kick(&self, cmd: u32) -> Result {
        self.regs()?.write32(cmd | DMA_RUN, REG_DMA_CMD)
    }

    /// Proof that edu uses no address it holds: it is not running a
    /// transfer (`DMA_RUN` reads back clear).
    pub(crate) fn idle(&self) -> Result<Idle<'_>> {
        let mmio = self.regs()?;
        if mmio.read32(REG_DMA_CMD)? & DMA_RUN != 0 {
            return Err(EBUSY);
        }
        // SAFETY: edu reads or writes RAM only while a transfer runs, and it
        // has finished the last one (`DMA_RUN` clear, read just above); it
        // starts one only when `DMA_RUN` is written to `REG_DMA_CMD`, which
        // this driver does only in `start()`, with the transfer's addresses
        // programmed from mappings in flight (the `Run` that calls `start()`
        // lends them first), so no address left in its registers is used
        // again without being handed out again.
        Ok(unsafe { Idle::assume(&self.dev) })
    }

    /// Starts the programmed transfer and sleeps until it has landed;
    /// returns the proof that edu is done with the addresses it was given.
    pub(crate) fn start(&self, cmd: u32) -> Result<Idle<'_>> {
        let mmio = self.regs()?;
        mmio.write32(cmd | DMA_RUN, REG_DMA_CMD)?;
        if crate::wedge_test() && !self.is_wedged() {
            // The wedge test: this transfer, running now, counts as one that
            // never finished.
            dev_info!(
                self.dev,
                "bouncelab: error driver=rust wedge test: transfer treated as timed out\n"
            );
            self.wedged.store(true, Ordering::Relaxed);
            return Err(ETIMEDOUT);
        }
        msleep(DMA_LATENCY_MS);
        let mut waited = 0;
        while mmio.read32(REG_DMA_CMD)? & DMA_RUN != 0 {
            if waited >= DMA_TIMEOUT_MS {
                dev_info!(
                    self.dev,
                    "bouncelab: error driver=rust edu DMA timeout, keeping the transfer's mappings\n"
                );
                self.wedged.store(true, Ordering::Relaxed);
                return Err(ETIMEDOUT);
            }
            msleep(1);
            waited += 1;
        }
        // SAFETY: as in `idle()`: `DMA_RUN` read back clear just above.
        Ok(unsafe { Idle::assume(&self.dev) })
    }
}
