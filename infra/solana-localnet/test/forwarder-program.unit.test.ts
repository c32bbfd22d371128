import { address } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { LiteSVM } from 'litesvm';
import {
  Assembler,
  FORWARDER_PROGRAM_ID,
  forwarderProgram,
  forwarderProgramElf,
  sbpfElf,
} from '../src/forwarder-program';

/** The 8-byte slots of assembled text, as [opcode, registers, offset, immediate]. */
function slots(text: Uint8Array): [number, number, number, number][] {
  const view = new DataView(text.buffer, text.byteOffset, text.byteLength);
  return Array.from({ length: text.length / 8 }, (_, i) => [
    view.getUint8(i * 8),
    view.getUint8(i * 8 + 1),
    view.getInt16(i * 8 + 2, true),
    view.getInt32(i * 8 + 4, true),
  ]);
}

/** Just enough of an ELF reader to check what the loader relies on. */
function readElf(elf: Uint8Array) {
  const view = new DataView(elf.buffer, elf.byteOffset, elf.byteLength);
  const u64 = (at: number) => Number(view.getBigUint64(at, true));
  const shoff = u64(0x28);
  const shnum = view.getUint16(0x3c, true);
  const raw = Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * 64;
    return {
      nameOffset: view.getUint32(at, true),
      type: view.getUint32(at + 4, true),
      addr: u64(at + 16),
      offset: u64(at + 24),
      size: u64(at + 32),
      link: view.getUint32(at + 40, true),
    };
  });
  const shstrtab = raw[view.getUint16(0x3e, true)]!;
  const cString = (at: number) => {
    let end = at;
    while (elf[end] !== 0) end++;
    return new TextDecoder().decode(elf.subarray(at, end));
  };
  const sections = raw.map((section) => ({
    ...section,
    name: cString(shstrtab.offset + section.nameOffset),
  }));
  const section = (name: string) => sections.find((candidate) => candidate.name === name)!;
  const dynamic = new Map<number, number>();
  for (let at = section('.dynamic').offset; u64(at) !== 0; at += 16) dynamic.set(u64(at), u64(at + 8));
  return {
    magic: [...elf.subarray(0, 4)],
    class: elf[4],
    data: elf[5],
    type: view.getUint16(0x10, true),
    machine: view.getUint16(0x12, true),
    entry: u64(0x18),
    flags: view.getUint32(0x30, true),
    sections,
    section,
    dynamic,
    u64,
    cString,
    view,
  };
}

describe('the sBPF assembler', () => {
  it('encodes opcode, registers (destination low, source high), offset and immediate, little-endian', () => {
    const text = new Assembler()
      .load('u64', 7, 1, 0)
      .store('u8', 9, 48, 2)
      .addImm(5, -1)
      .movImm(0, 1)
      .exit()
      .assemble();
    expect([...text]).toEqual([
      ...[0x79, 0x17, 0, 0, 0, 0, 0, 0], // ldxdw r7, [r1+0]
      ...[0x73, 0x29, 48, 0, 0, 0, 0, 0], // stxb [r9+48], r2
      ...[0x07, 0x05, 0, 0, 0xff, 0xff, 0xff, 0xff], // add64 r5, -1
      ...[0xb7, 0x00, 0, 0, 1, 0, 0, 0], // mov64 r0, 1
      ...[0x95, 0x00, 0, 0, 0, 0, 0, 0], // exit
    ]);
  });

  it('splits a 64-bit immediate over the two slots of lddw', () => {
    expect(slots(new Assembler().lddw(8, 0x3_0000_0001n).assemble())).toEqual([
      [0x18, 0x08, 0, 1],
      [0x00, 0x00, 0, 3],
    ]);
  });

  it('resolves jumps to labels as slot offsets from the next slot, forwards and backwards', () => {
    const text = new Assembler()
      .label('top')
      .jumpIf(0x15, 1, { imm: 0 }, 'end') // slot 0
      .lddw(2, 1n) // slots 1-2
      .jump('top') // slot 3
      .label('end')
      .exit()
      .assemble();
    expect(slots(text).map(([opcode, , offset]) => [opcode, offset])).toEqual([
      [0x15, 3],
      [0x18, 0],
      [0x00, 0],
      [0x05, -4],
      [0x95, 0],
    ]);
    expect(() => new Assembler().jump('nowhere').assemble()).toThrow(/unknown label nowhere/);
  });

  it('leaves a syscall call at -1 and records where it is, for the ELF to relocate', () => {
    const program = new Assembler().movImm(4, 0).syscall('sol_log_').exit();
    expect(slots(program.assemble())[1]).toEqual([0x85, 0x00, 0, -1]);
    expect(program.syscalls).toEqual([{ slot: 1, name: 'sol_log_' }]);
  });
});

describe('the SBPFv0 ELF', () => {
  const program = forwarderProgram();
  const elf = readElf(forwarderProgramElf());

  it('is a 64-bit little-endian ET_DYN for EM_BPF, SBPF version 0, entering at the first instruction of .text', () => {
    expect(elf).toMatchObject({
      magic: [0x7f, 0x45, 0x4c, 0x46],
      class: 2,
      data: 1,
      type: 3,
      machine: 247,
      flags: 0,
    });
    const text = elf.section('.text');
    expect(elf.sections.filter((section) => section.name === '.text')).toHaveLength(1);
    expect(text.addr).toBe(text.offset);
    expect(elf.entry).toBe(text.addr);
    expect(text.size).toBe(program.assemble().length);
  });

  it("relocates each syscall call by name: an R_BPF_64_32 at the call's file offset against an undefined dynamic symbol", () => {
    const text = elf.section('.text');
    const dynsym = elf.section('.dynsym');
    const dynstr = elf.section('.dynstr');
    const rel = elf.section('.rel.dyn');
    expect(elf.dynamic.get(6)).toBe(dynsym.addr); // DT_SYMTAB
    expect(elf.dynamic.get(5)).toBe(dynstr.addr); // DT_STRTAB
    expect(elf.dynamic.get(17)).toBe(rel.addr); // DT_REL
    expect(elf.dynamic.get(18)).toBe(rel.size); // DT_RELSZ
    expect(elf.dynamic.get(19)).toBe(16); // DT_RELENT
    expect(dynsym.link).toBe(elf.sections.indexOf(dynstr));

    const relocations = Array.from({ length: rel.size / 16 }, (_, i) => {
      const info = elf.view.getBigUint64(rel.offset + i * 16 + 8, true);
      const symbol = dynsym.offset + Number(info >> 32n) * 24;
      return {
        offset: elf.u64(rel.offset + i * 16),
        type: Number(info & 0xffffffffn),
        symbol: elf.cString(dynstr.offset + elf.view.getUint32(symbol, true)),
        sectionIndex: elf.view.getUint16(symbol + 6, true),
      };
    });
    expect(relocations).toEqual(
      program.syscalls.map((call) => ({
        offset: text.offset + call.slot * 8,
        type: 10,
        symbol: call.name,
        sectionIndex: 0,
      })),
    );
    expect(relocations.map((relocation) => relocation.symbol)).toEqual(['sol_invoke_signed_c']);
  });
});

describe('the loader (solana-sbpf, in litesvm)', () => {
  it('deploys the forwarder', () => {
    expect(() =>
      new LiteSVM().addProgram(address(FORWARDER_PROGRAM_ID.toBase58()), forwarderProgramElf()),
    ).not.toThrow();
  });

  it("refuses a syscall called by its hash: in SBPFv0 a call's immediate other than -1 is a relative call", () => {
    const program = forwarderProgram();
    const text = program.assemble();
    // murmur3-32 (seed 0) of "sol_invoke_signed_c", the key the loader registers the syscall under.
    for (const call of program.syscalls)
      new DataView(text.buffer).setUint32(call.slot * 8 + 4, 0xa22b9c85, true);
    expect(() =>
      new LiteSVM().addProgram(address(Keypair.generate().publicKey.toBase58()), sbpfElf(text, [])),
    ).toThrow(/Relative jump out of bounds/);
  });
});
