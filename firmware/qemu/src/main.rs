//! The controller as firmware: reads the nodes' costs as text lines on the board's UART,
//! plans with divload's closed form in a static [`Session`], and writes each node's share
//! and the certified gap back (the protocol: `divload_controller::session`). One image per
//! board (`--features microbit` for a Cortex-M0 in `Q32`, `--features mps2-an386` for a
//! Cortex-M4F in `f32`, with `f64` in `f64`); `tests/firmware/run` boots each in QEMU.
//!
//! Beyond the protocol, `quit` answers `ok quit stack_peak_bytes N` and ends the run
//! through semihosting, so that QEMU exits; on a real board without a debugger attached
//! the semihosting call stops the core instead. `N` is the deepest the stack has reached
//! since reset, found by painting the free RAM at boot and looking for the first word
//! overwritten.
#![no_std]
#![no_main]

#[cfg_attr(feature = "microbit", path = "board/microbit.rs")]
#[cfg_attr(feature = "mps2-an386", path = "board/mps2_an386.rs")]
mod board;

use core::fmt::{self, Write};
use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::debug;
use divload_controller::session::{Session, Step};

/// Most nodes a session accepts: the sizes are 4, 8 and 16.
const NODES: usize = 16;

/// SysTick is 24 bits wide: its wraps are counted here to make a 56-bit clock.
static SYSTICK_WRAPS: AtomicU32 = AtomicU32::new(0);

#[exception]
fn SysTick() {
    // Only this handler writes, so a load and a store suffice (the M0 has no atomic add).
    SYSTICK_WRAPS.store(SYSTICK_WRAPS.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
}

/// Nanoseconds since the clock started, from SysTick counting core cycles.
fn now_ns() -> u64 {
    const RELOAD: u64 = 0x00FF_FFFF;
    loop {
        let wraps = SYSTICK_WRAPS.load(Ordering::Relaxed);
        let left = cortex_m::peripheral::SYST::get_current() as u64;
        // A wrap between the two reads would pair the new count with the old wraps.
        if wraps == SYSTICK_WRAPS.load(Ordering::Relaxed) {
            let cycles = wraps as u64 * (RELOAD + 1) + (RELOAD - left);
            // Per microsecond rather than per second: `cycles * 10⁹` would overflow after
            // 19 minutes at 16 MHz, this after 36 years.
            return cycles * 1000 / board::CYCLES_PER_US;
        }
    }
}

struct Uart;

impl Write for Uart {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        s.bytes().for_each(board::write_byte);
        Ok(())
    }
}

const PAINT: u32 = 0x5EED_5EED;

extern "C" {
    /// End of `.bss` and `.uninit`: the stack may grow down to here (cortex-m-rt).
    static mut __sheap: u32;
    /// Top of the stack, the end of RAM (cortex-m-rt).
    static _stack_start: u32;
}

/// Fills the RAM between the statics and the current stack frame with [`PAINT`].
fn paint_stack() {
    let sp = cortex_m::register::msp::read() as usize;
    let mut at = core::ptr::addr_of_mut!(__sheap);
    // A margin below the frame in use, for the calls this loop makes.
    while (at as usize) < sp - 64 {
        // SAFETY: between the end of the statics and below the live stack nothing is
        // in use yet, and `at` stays word-aligned inside RAM.
        unsafe {
            at.write_volatile(PAINT);
            at = at.add(1);
        }
    }
}

/// Deepest stack use since [`paint_stack`], in bytes.
fn stack_peak() -> usize {
    let top = core::ptr::addr_of!(_stack_start) as usize;
    let mut at = core::ptr::addr_of!(__sheap);
    // SAFETY: reads stay between the end of the statics and the top of the stack.
    while (at as usize) < top && unsafe { at.read_volatile() } == PAINT {
        at = unsafe { at.add(1) };
    }
    top - at as usize
}

#[entry]
fn main() -> ! {
    // cortex-m-rt turns this into a `&'static mut`, taken once: the static workspace.
    static mut SESSION: Session<board::Number, NODES> = Session::new();

    paint_stack();
    board::init();
    if let Some(mut core) = cortex_m::Peripherals::take() {
        core.SYST.set_clock_source(SystClkSource::Core);
        core.SYST.set_reload(0x00FF_FFFF);
        core.SYST.clear_current();
        core.SYST.enable_interrupt();
        core.SYST.enable_counter();
    }
    let mut uart = Uart;
    let _ = writeln!(
        uart,
        "ok divload-controller {} {} nodes {NODES} line {}",
        board::NAME,
        <board::Number as divload::Real>::NAME,
        divload_controller::session::LINE
    );
    loop {
        let byte = board::read_byte();
        if let Ok(Step::Quit) = SESSION.feed(byte, &mut uart, now_ns) {
            let _ = writeln!(uart, "ok quit stack_peak_bytes {}", stack_peak());
            debug::exit(debug::EXIT_SUCCESS);
        }
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // Seen by the test as QEMU's exit status, rather than as a hang until its timeout.
    loop {
        debug::exit(debug::EXIT_FAILURE);
    }
}
