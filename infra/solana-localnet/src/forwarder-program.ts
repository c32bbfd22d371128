/**
 * A tiny on-chain program of our own, written here in sBPF instructions, so that tests can make a real
 * cross-program invocation (CPI): the "forwarder" invokes the program named by its first account with its other
 * accounts (their signer and writable flags as it received them) and its own instruction data. A transaction whose
 * top-level instruction is the forwarder, with the token program first and a TransferChecked's accounts and data
 * after it, moves tokens in an inner instruction, as a wallet, an exchange or a DeFi program would.
 *
 * The file holds what it takes: a minimal assembler for the handful of instructions used, the program, and an ELF
 * writer producing what the Solana BPF loader accepts for an SBPFv0 ("legacy") program.
 */
import { PublicKey, TransactionInstruction } from '@solana/web3.js';

/** The forwarder's address on the local chain. */
export const FORWARDER_PROGRAM_ID = new PublicKey('CpiForwarder1111111111111111111111111111111');

/**
 * The same instruction sent through the forwarder: it names the program to invoke first, then the instruction's
 * accounts, and carries its data. In the landed transaction, the instruction is an inner instruction of this one.
 * An account given twice (e.g. the same reference listed twice) makes the forwarder refuse.
 */
export function forwarderInstruction(
  instruction: TransactionInstruction,
  forwarder: PublicKey = FORWARDER_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId: forwarder,
    keys: [{ pubkey: instruction.programId, isSigner: false, isWritable: false }, ...instruction.keys],
    data: instruction.data,
  });
}

/** Its exit code when it refuses its input: no account to invoke, too many accounts, or an account given twice. */
export const FORWARDER_REFUSED = 1;

/**
 * The most accounts it takes: its heap (32 KiB) holds a SolAccountMeta (16 bytes) and a SolAccountInfo (56 bytes) for
 * each, and the runtime limits a CPI's account infos too.
 */
export const FORWARDER_MAX_ACCOUNTS = 128;

// ---------------------------------------------------------------------------------------------------------------
// sBPF instructions. Each is 8 bytes: opcode (u8), registers (u8: destination in the low nibble, source in the
// high one), offset (i16) and immediate (i32), little-endian; `lddw` takes two slots, the second holding the high
// 32 bits of its 64-bit immediate. Jump offsets count slots from the one after the jump.
// ---------------------------------------------------------------------------------------------------------------

type Register = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10;

/** The opcodes used (class | size/mode | source bits, as in the eBPF encoding). */
export const OPCODES = {
  lddw: 0x18,
  ldxb: 0x71,
  ldxdw: 0x79,
  stxb: 0x73,
  stxdw: 0x7b,
  add64Imm: 0x07,
  add64Reg: 0x0f,
  and64Imm: 0x57,
  lsh64Imm: 0x67,
  mov64Imm: 0xb7,
  mov64Reg: 0xbf,
  ja: 0x05,
  jeqImm: 0x15,
  jneImm: 0x55,
  jgtImm: 0x25,
  call: 0x85,
  exit: 0x95,
} as const;

interface Slot {
  opcode: number;
  dst: Register;
  src: Register;
  offset: number;
  imm: number;
  /** A jump's target, resolved to an offset when assembled. */
  target?: string;
}

/** Collects instructions, labels and syscall sites; `assemble` resolves jumps and encodes. */
export class Assembler {
  private readonly slots: Slot[] = [];
  private readonly labels = new Map<string, number>();
  /** Slot indexes of `call` instructions to syscalls, by syscall name (the ELF writer relocates them). */
  readonly syscalls: { slot: number; name: string }[] = [];

  label(name: string): this {
    if (this.labels.has(name)) throw new Error(`label ${name} defined twice`);
    this.labels.set(name, this.slots.length);
    return this;
  }

  op(opcode: number, dst: Register, src: Register, offset: number, imm: number, target?: string): this {
    this.slots.push({ opcode, dst, src, offset, imm, target });
    return this;
  }

  /** dst = 64-bit immediate. */
  lddw(dst: Register, value: bigint): this {
    const low = Number(BigInt.asIntN(32, value));
    const high = Number(BigInt.asIntN(32, value >> 32n));
    return this.op(OPCODES.lddw, dst, 0, 0, low).op(0, 0, 0, 0, high);
  }

  /** dst = *(u64 *)(src + offset), or u8 with `ldxb`. */
  load(width: 'u8' | 'u64', dst: Register, src: Register, offset: number): this {
    return this.op(width === 'u8' ? OPCODES.ldxb : OPCODES.ldxdw, dst, src, offset, 0);
  }

  /** *(u64 *)(dst + offset) = src, or u8. */
  store(width: 'u8' | 'u64', dst: Register, offset: number, src: Register): this {
    return this.op(width === 'u8' ? OPCODES.stxb : OPCODES.stxdw, dst, src, offset, 0);
  }

  movImm(dst: Register, imm: number): this {
    return this.op(OPCODES.mov64Imm, dst, 0, 0, imm);
  }

  mov(dst: Register, src: Register): this {
    return this.op(OPCODES.mov64Reg, dst, src, 0, 0);
  }

  addImm(dst: Register, imm: number): this {
    return this.op(OPCODES.add64Imm, dst, 0, 0, imm);
  }

  add(dst: Register, src: Register): this {
    return this.op(OPCODES.add64Reg, dst, src, 0, 0);
  }

  andImm(dst: Register, imm: number): this {
    return this.op(OPCODES.and64Imm, dst, 0, 0, imm);
  }

  lshImm(dst: Register, imm: number): this {
    return this.op(OPCODES.lsh64Imm, dst, 0, 0, imm);
  }

  jump(target: string): this {
    return this.op(OPCODES.ja, 0, 0, 0, 0, target);
  }

  /** Jumps when `dst` compares to the immediate or register as `opcode` says. */
  jumpIf(opcode: number, dst: Register, operand: { imm: number } | { src: Register }, target: string): this {
    return 'imm' in operand
      ? this.op(opcode, dst, 0, 0, operand.imm, target)
      : this.op(opcode, dst, operand.src, 0, 0, target);
  }

  /**
   * Calls a syscall by name. In an SBPFv0 ELF, `call` with any immediate but -1 is a call to a function of the
   * program at that relative offset; a syscall's call carries -1 and a relocation naming the syscall, which the loader
   * replaces with the hash of the name.
   */
  syscall(name: string): this {
    this.syscalls.push({ slot: this.slots.length, name });
    return this.op(OPCODES.call, 0, 0, 0, -1);
  }

  exit(): this {
    return this.op(OPCODES.exit, 0, 0, 0, 0);
  }

  assemble(): Uint8Array {
    const bytes = new Uint8Array(this.slots.length * 8);
    const view = new DataView(bytes.buffer);
    this.slots.forEach((slot, index) => {
      let offset = slot.offset;
      if (slot.target !== undefined) {
        const target = this.labels.get(slot.target);
        if (target === undefined) throw new Error(`unknown label ${slot.target}`);
        offset = target - (index + 1);
      }
      view.setUint8(index * 8, slot.opcode);
      view.setUint8(index * 8 + 1, (slot.src << 4) | slot.dst);
      view.setInt16(index * 8 + 2, offset, true);
      view.setInt32(index * 8 + 4, slot.imm, true);
    });
    return bytes;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The forwarder.
//
// Input (r1 points at it), as the BPF loader serializes it for a program (the "aligned" layout):
//   u64 number of accounts
//   per account, either a duplicate (u8 index of the first occurrence, 7 bytes of padding) or:
//     +0  u8 0xff (not a duplicate)   +1 u8 is_signer   +2 u8 is_writable   +3 u8 executable   +4 4 bytes padding
//     +8  key (32)   +40 owner (32)   +72 u64 lamports   +80 u64 data length   +88 data
//     then 10 KiB of room to grow the data (MAX_PERMITTED_DATA_INCREASE), padding to a multiple of 8,
//     and a u64 rent epoch
//   u64 instruction data length, the data, then the program id (32)
//
// What `sol_invoke_signed_c(instruction, account_infos, account_infos_len, signer_seeds, signer_seeds_len)` reads
// (the C ABI of the Solana SDK, 64-bit, natural alignment):
//   SolInstruction  { SolPubkey *program_id; SolAccountMeta *accounts; u64 account_len; u8 *data; u64 data_len; }
//                     offsets 0, 8, 16, 24, 32; 40 bytes
//   SolAccountMeta  { SolPubkey *pubkey; bool is_writable; bool is_signer; }            offsets 0, 8, 9; 16 bytes
//   SolAccountInfo  { SolPubkey *key; u64 *lamports; u64 data_len; u8 *data; SolPubkey *owner; u64 rent_epoch;
//                     bool is_signer; bool is_writable; bool executable; }
//                     offsets 0, 8, 16, 24, 32, 40, 48, 49, 50; 56 bytes
// Every pointer points into the serialized input itself, as the runtime requires of a CPI's account infos.
//
// The structures are built on the program's heap (MM_HEAP_START, 32 KiB): the account metas of all the accounts
// first (the instruction points past the first one, the program invoked), then the account infos of all of them
// (the program invoked among them), then the instruction.
// ---------------------------------------------------------------------------------------------------------------

const MM_HEAP_START = 0x3_0000_0000n;
const NOT_DUPLICATE = 0xff;
const MAX_PERMITTED_DATA_INCREASE = 10 * 1024;
/** Offsets in a serialized account that is not a duplicate. */
const ACCOUNT = {
  isSigner: 1,
  isWritable: 2,
  executable: 3,
  key: 8,
  owner: 40,
  lamports: 72,
  dataLen: 80,
  data: 88,
};
/** Offsets in a SolAccountInfo, a SolAccountMeta and a SolInstruction. */
const INFO = {
  key: 0,
  lamports: 8,
  dataLen: 16,
  data: 24,
  owner: 32,
  rentEpoch: 40,
  isSigner: 48,
  isWritable: 49,
  executable: 50,
};
const INFO_SIZE = 56;
const META = { pubkey: 0, isWritable: 8, isSigner: 9 };
/** log2 of the size of a SolAccountMeta (16 bytes). */
const META_SIZE_SHIFT = 4;
const META_SIZE = 1 << META_SIZE_SHIFT;
const INSTRUCTION = { programId: 0, accounts: 8, accountLen: 16, data: 24, dataLen: 32 };

/** The forwarder's text: the sBPF instructions and where they call syscalls. */
export function forwarderProgram(): Assembler {
  const a = new Assembler();
  // r7: number of accounts; r6: cursor in the input; r8: next account meta; r9: next account info; r5: accounts left.
  a.load('u64', 7, 1, 0)
    .jumpIf(OPCODES.jeqImm, 7, { imm: 0 }, 'refuse')
    .jumpIf(OPCODES.jgtImm, 7, { imm: FORWARDER_MAX_ACCOUNTS }, 'refuse')
    .mov(6, 1)
    .addImm(6, 8)
    .lddw(8, MM_HEAP_START)
    .mov(9, 7)
    .lshImm(9, META_SIZE_SHIFT)
    .add(9, 8)
    .mov(5, 7);

  // Per account: its info and its meta point into the input (r2: a pointer, r3: the data length, r0: the marker).
  const pointTo = (field: number, infoField: number, metaField?: number) => {
    a.mov(2, 6).addImm(2, field).store('u64', 9, infoField, 2);
    if (metaField !== undefined) a.store('u64', 8, metaField, 2);
  };
  const copyFlag = (field: number, infoField: number, metaField?: number) => {
    a.load('u8', 2, 6, field).store('u8', 9, infoField, 2);
    if (metaField !== undefined) a.store('u8', 8, metaField, 2);
  };
  a.label('account')
    .jumpIf(OPCODES.jeqImm, 5, { imm: 0 }, 'invoke')
    .load('u8', 0, 6, 0)
    .jumpIf(OPCODES.jneImm, 0, { imm: NOT_DUPLICATE }, 'refuse');
  pointTo(ACCOUNT.key, INFO.key, META.pubkey);
  pointTo(ACCOUNT.lamports, INFO.lamports);
  pointTo(ACCOUNT.data, INFO.data);
  pointTo(ACCOUNT.owner, INFO.owner);
  copyFlag(ACCOUNT.isSigner, INFO.isSigner, META.isSigner);
  copyFlag(ACCOUNT.isWritable, INFO.isWritable, META.isWritable);
  copyFlag(ACCOUNT.executable, INFO.executable);
  a.load('u64', 3, 6, ACCOUNT.dataLen)
    .store('u64', 9, INFO.dataLen, 3)
    // The rent epoch: after the data, its room to grow, and padding to a multiple of 8.
    .addImm(3, ACCOUNT.data + MAX_PERMITTED_DATA_INCREASE + 7)
    .andImm(3, -8)
    .add(6, 3)
    .load('u64', 2, 6, 0)
    .store('u64', 9, INFO.rentEpoch, 2)
    .addImm(6, 8)
    .addImm(8, META_SIZE)
    .addImm(9, INFO_SIZE)
    .addImm(5, -1)
    .jump('account');

  // r6 now points at the instruction data length; r9 past the last account info, where the instruction goes.
  a.label('invoke')
    .lddw(2, MM_HEAP_START) // r2: the account metas
    .mov(3, 7)
    .lshImm(3, META_SIZE_SHIFT)
    .add(3, 2) // r3: the account infos
    .load('u64', 4, 3, INFO.key)
    .store('u64', 9, INSTRUCTION.programId, 4) // the first account's key
    .addImm(2, META_SIZE)
    .store('u64', 9, INSTRUCTION.accounts, 2) // the metas after the first
    .mov(4, 7)
    .addImm(4, -1)
    .store('u64', 9, INSTRUCTION.accountLen, 4)
    .load('u64', 4, 6, 0)
    .store('u64', 9, INSTRUCTION.dataLen, 4)
    .addImm(6, 8)
    .store('u64', 9, INSTRUCTION.data, 6)
    // sol_invoke_signed_c(instruction, account infos, their number, no signer seeds, 0)
    .mov(1, 9)
    .mov(2, 3)
    .mov(3, 7)
    .movImm(4, 0)
    .movImm(5, 0)
    .syscall('sol_invoke_signed_c')
    .exit(); // with the syscall's result, 0 (a failed invocation aborts the program)

  a.label('refuse').movImm(0, FORWARDER_REFUSED).exit();
  return a;
}

// ---------------------------------------------------------------------------------------------------------------
// ELF64, little-endian, as the loader (solana-sbpf) reads an SBPFv0 program: ET_DYN, e_machine EM_BPF (247),
// e_flags 0 (SBPF version 0), exactly one `.text` section whose address equals its file offset, the entry point
// inside it. Syscall calls are resolved through the dynamic section: DT_REL points at `.rel.dyn`, whose
// R_BPF_64_32 entries name a `.dynsym` symbol (undefined, so a syscall) at each call's file offset; DT_SYMTAB points
// at `.dynsym`, and the names are in `.dynstr`. Program headers map the text and the dynamic data, as a linker does.
// ---------------------------------------------------------------------------------------------------------------

const EM_BPF = 247;
const ET_DYN = 3;
const R_BPF_64_32 = 10;
const SHT = { null: 0, progbits: 1, strtab: 3, dynamic: 6, rel: 9, dynsym: 11 } as const;
const SHF = { write: 1, alloc: 2, execinstr: 4 } as const;
const PT = { load: 1, dynamic: 2 } as const;
const PF = { x: 1, r: 4 } as const;
const DT = { null: 0, strtab: 5, symtab: 6, strsz: 10, syment: 11, rel: 17, relsz: 18, relent: 19 } as const;
const STB_GLOBAL = 1;
const STT_NOTYPE = 0;
const EHDR_SIZE = 64;
const PHDR_SIZE = 56;
const SHDR_SIZE = 64;
const SYM_SIZE = 24;
const REL_SIZE = 16;
const DYN_SIZE = 16;

/** Bytes appended little-endian. */
class Writer {
  private readonly bytes: number[] = [];

  get length(): number {
    return this.bytes.length;
  }

  private int(value: number | bigint, size: number): this {
    const unsigned = BigInt.asUintN(size * 8, BigInt(value));
    for (let i = 0; i < size; i++) this.bytes.push(Number((unsigned >> BigInt(8 * i)) & 0xffn));
    return this;
  }
  u8(value: number): this {
    return this.int(value, 1);
  }
  u16(value: number): this {
    return this.int(value, 2);
  }
  u32(value: number): this {
    return this.int(value, 4);
  }
  u64(value: number | bigint): this {
    return this.int(value, 8);
  }
  raw(data: Uint8Array): this {
    this.bytes.push(...data);
    return this;
  }
  align(to: number): this {
    while (this.bytes.length % to !== 0) this.bytes.push(0);
    return this;
  }
  result(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

/** NUL-separated names, each found by its offset (offset 0 is the empty name). */
function stringTable(names: string[]): { bytes: Uint8Array; offsetOf: (name: string) => number } {
  const offsets = new Map<string, number>();
  let text = '\0';
  for (const name of names) {
    offsets.set(name, text.length);
    text += `${name}\0`;
  }
  return { bytes: new TextEncoder().encode(text), offsetOf: (name) => offsets.get(name) ?? 0 };
}

interface Section {
  name: string;
  type: number;
  flags: number;
  data: Uint8Array;
  link?: number;
  info?: number;
  entsize?: number;
}

/** An SBPFv0 ELF of the text, its entry point at the first instruction, its syscalls relocated by name. */
export function sbpfElf(text: Uint8Array, syscalls: readonly { slot: number; name: string }[]): Uint8Array {
  const phnum = 3;
  const textOffset = EHDR_SIZE + phnum * PHDR_SIZE;
  const names = [...new Set(syscalls.map((call) => call.name))];
  const dynstr = stringTable(names);
  const align8 = (n: number) => Math.ceil(n / 8) * 8;

  // Layout: every section at an 8-aligned offset, its address equal to its offset.
  const dynsymOffset = align8(textOffset + text.length);
  const dynsymSize = (names.length + 1) * SYM_SIZE;
  const dynstrOffset = dynsymOffset + dynsymSize;
  const relOffset = align8(dynstrOffset + dynstr.bytes.length);
  const relSize = syscalls.length * REL_SIZE;
  const dynamicOffset = relOffset + relSize;

  const dynsym = new Writer().raw(new Uint8Array(SYM_SIZE)); // symbol 0: none
  for (const name of names)
    dynsym
      .u32(dynstr.offsetOf(name))
      .u8((STB_GLOBAL << 4) | STT_NOTYPE)
      .u8(0)
      .u16(0) // undefined: a syscall
      .u64(0)
      .u64(0);
  const rel = new Writer();
  for (const call of syscalls)
    rel
      .u64(textOffset + call.slot * 8)
      .u64((BigInt(names.indexOf(call.name) + 1) << 32n) | BigInt(R_BPF_64_32));
  const dynamic = new Writer();
  const entries: [number, number][] = [
    [DT.symtab, dynsymOffset],
    [DT.syment, SYM_SIZE],
    [DT.strtab, dynstrOffset],
    [DT.strsz, dynstr.bytes.length],
  ];
  // The loader refuses an empty relocation table: without syscalls, there is none.
  if (relSize > 0) entries.push([DT.rel, relOffset], [DT.relsz, relSize], [DT.relent, REL_SIZE]);
  for (const [tag, value] of [...entries, [DT.null, 0]]) dynamic.u64(tag!).u64(value!);

  const sections: Section[] = [
    { name: '', type: SHT.null, flags: 0, data: new Uint8Array() },
    { name: '.text', type: SHT.progbits, flags: SHF.alloc | SHF.execinstr, data: text },
    {
      name: '.dynsym',
      type: SHT.dynsym,
      flags: SHF.alloc,
      data: dynsym.result(),
      link: 3,
      info: 1,
      entsize: SYM_SIZE,
    },
    { name: '.dynstr', type: SHT.strtab, flags: SHF.alloc, data: dynstr.bytes },
    { name: '.rel.dyn', type: SHT.rel, flags: SHF.alloc, data: rel.result(), link: 2, entsize: REL_SIZE },
    {
      name: '.dynamic',
      type: SHT.dynamic,
      flags: SHF.alloc | SHF.write,
      data: dynamic.result(),
      link: 3,
      entsize: DYN_SIZE,
    },
    { name: '.shstrtab', type: SHT.strtab, flags: 0, data: new Uint8Array() },
  ];
  const shstrtab = stringTable(sections.slice(1).map((section) => section.name));
  sections[6]!.data = shstrtab.bytes;

  const body = new Writer();
  body.raw(new Uint8Array(textOffset)); // headers, written below
  const placed = sections.map((section) => {
    if (section.type === SHT.null) return { section, offset: 0 };
    body.align(8);
    const offset = body.length;
    body.raw(section.data);
    return { section, offset };
  });
  body.align(8);
  const shoff = body.length;
  for (const { section, offset } of placed)
    body
      .u32(shstrtab.offsetOf(section.name))
      .u32(section.type)
      .u64(section.flags)
      .u64(section.flags & SHF.alloc ? offset : 0) // sh_addr
      .u64(offset)
      .u64(section.data.length)
      .u32(section.link ?? 0)
      .u32(section.info ?? 0)
      .u64(8) // sh_addralign
      .u64(section.entsize ?? 0);
  if (placed[2]!.offset !== dynsymOffset || placed[5]!.offset !== dynamicOffset)
    throw new Error('ELF layout out of step');

  const header = new Writer()
    .raw(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])) // magic, ELFCLASS64, little-endian, EV_CURRENT, ELFOSABI_NONE
    .raw(new Uint8Array(8)) // ABI version and padding
    .u16(ET_DYN)
    .u16(EM_BPF)
    .u32(1) // e_version
    .u64(textOffset) // e_entry: the first instruction
    .u64(EHDR_SIZE) // e_phoff
    .u64(shoff)
    .u32(0) // e_flags: SBPF version 0
    .u16(EHDR_SIZE)
    .u16(PHDR_SIZE)
    .u16(phnum)
    .u16(SHDR_SIZE)
    .u16(sections.length)
    .u16(sections.length - 1); // e_shstrndx
  const segment = (type: number, flags: number, offset: number, size: number) =>
    header.u32(type).u32(flags).u64(offset).u64(offset).u64(offset).u64(size).u64(size).u64(8);
  segment(PT.load, PF.r | PF.x, textOffset, text.length);
  segment(PT.load, PF.r, dynsymOffset, dynamicOffset + dynamic.length - dynsymOffset);
  segment(PT.dynamic, PF.r, dynamicOffset, dynamic.length);

  const elf = body.result();
  elf.set(header.result(), 0);
  return elf;
}

/** The forwarder as an ELF the loader deploys. */
export function forwarderProgramElf(): Uint8Array {
  const program = forwarderProgram();
  return sbpfElf(program.assemble(), program.syscalls);
}
