//! Arm MPS2 with the AN386 image (Cortex-M4 with single-precision FPU at 25 MHz: plans in
//! `f32`, or in `f64` with feature `f64`), UART0 an Arm CMSDK APB UART (Cortex-M System
//! Design Kit TRM, §4.5).

#[cfg(not(feature = "f64"))]
pub type Number = f32;
#[cfg(feature = "f64")]
pub type Number = f64;
pub const NAME: &str = "mps2-an386";
pub const CYCLES_PER_US: u64 = 25;

const UART0: usize = 0x4000_4000;
const DATA: usize = 0x00;
const STATE: usize = 0x04;
const CTRL: usize = 0x08;
const BAUDDIV: usize = 0x10;
const TX_FULL: u32 = 1;
const RX_FULL: u32 = 2;

fn reg(offset: usize) -> *mut u32 {
    (UART0 + offset) as *mut u32
}

pub fn init() {
    // SAFETY: UART0's registers, used by this module alone.
    unsafe {
        // 25 MHz / 217 ≈ 115 200 baud; the CMSDK UART wants at least 16.
        reg(BAUDDIV).write_volatile(217);
        reg(CTRL).write_volatile(0b11); // transmit and receive enabled
    }
}

pub fn write_byte(byte: u8) {
    // SAFETY: as in `init`.
    unsafe {
        while reg(STATE).read_volatile() & TX_FULL != 0 {}
        reg(DATA).write_volatile(byte as u32);
    }
}

pub fn read_byte() -> u8 {
    // SAFETY: as in `init`.
    unsafe {
        while reg(STATE).read_volatile() & RX_FULL == 0 {}
        reg(DATA).read_volatile() as u8
    }
}
