//! BBC micro:bit v1 (nRF51822, Cortex-M0 at 16 MHz, no FPU: plans in `Q32`), UART0 on the
//! USB serial pins. Register offsets from the nRF51 Series Reference Manual, §29 (UART).

pub type Number = divload::Q32;
pub const NAME: &str = "microbit";
pub const CYCLES_PER_US: u64 = 16;

const UART0: usize = 0x4000_2000;
const STARTRX: usize = 0x000;
const STARTTX: usize = 0x008;
const RXDRDY: usize = 0x108;
const TXDRDY: usize = 0x11C;
const ENABLE: usize = 0x500;
const PSELTXD: usize = 0x50C;
const PSELRXD: usize = 0x514;
const RXD: usize = 0x518;
const TXD: usize = 0x51C;
const BAUDRATE: usize = 0x524;

fn reg(offset: usize) -> *mut u32 {
    (UART0 + offset) as *mut u32
}

pub fn init() {
    // SAFETY: UART0's registers, used by this module alone.
    unsafe {
        // P0.24 / P0.25 are the pins wired to the interface chip's USB serial port.
        reg(PSELTXD).write_volatile(24);
        reg(PSELRXD).write_volatile(25);
        reg(BAUDRATE).write_volatile(0x01D7_E000); // 115 200 baud
        reg(ENABLE).write_volatile(4);
        reg(STARTTX).write_volatile(1);
        reg(STARTRX).write_volatile(1);
    }
}

pub fn write_byte(byte: u8) {
    // SAFETY: as in `init`.
    unsafe {
        reg(TXD).write_volatile(byte as u32);
        while reg(TXDRDY).read_volatile() == 0 {}
        reg(TXDRDY).write_volatile(0);
    }
}

pub fn read_byte() -> u8 {
    // SAFETY: as in `init`.
    unsafe {
        while reg(RXDRDY).read_volatile() == 0 {}
        // Cleared before RXD is read: reading it raises the event again if more is waiting.
        reg(RXDRDY).write_volatile(0);
        reg(RXD).read_volatile() as u8
    }
}
