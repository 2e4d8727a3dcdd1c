/* templates/emu.h: placeholder until the emulator lands (issue 6). */
#error "gen --emulate: the CPU emulation headers are not written yet"
