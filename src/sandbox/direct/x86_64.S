# A sandboxed command started by SCV itself, without a launcher process (see ../direct.ts): x86_64 machine code
# that SCV maps and calls through bun:ffi. Three programs of system calls, made by SCV beforehand, do the work;
# this code only runs them in the right processes and reaps:
#   spawn(block): blocks every signal in the calling thread, then clone(CLONE_VM|CLONE_VFORK|CLONE_FILES) an
#     intermediate that shares SCV's memory and descriptors (the calling thread waits while it runs). The
#     intermediate runs program I (setns into the session's namespaces, the proxy's listening socket, which lands
#     in SCV's own descriptor table), then clones PID 1 with the block's flags (CLONE_VM|CLONE_PARENT and the new
#     namespaces: PID 1 is SCV's child, in a new PID namespace) and exits. The caller reaps the intermediate,
#     restores its signal mask and returns PID 1's pid (or -errno of the first clone).
#   PID 1 runs program P (its mount namespace, id maps, setsid, closing SCV's descriptors, the mounts, the
#     Landlock ruleset, chdir), then starts the command with clone(CLONE_VM|CLONE_VFORK); the command's child runs program
#     C (signal mask and dispositions, stdio, no_new_privs, Landlock, capabilities, closing the rest) ending in
#     execve. PID 1 then reaps everything until the command ends, kills and counts what the command left,
#     writes the outcome into the block and exits with the command's status. SCV learns of its end from the
#     life descriptor (a pipe PID 1 holds and the command does not) and reads the outcome from the block.
# A failure is written into the block: {u32 program (1 I, 2 P, 3 C), u32 op index, i32 -errno}.
# Block: 0 program I, 8 program P, 16 program C, 24 PID 1's clone flags, 32/40/48 stack tops (intermediate,
# PID 1, command), 56 PID 1's pid, 64 failure, 80 scratch wait status, 88 the caller's signal mask, 96 ~0,
# 104 outcome {u32 kind (1 ended), u32 stopped, u32 the command's wait status}.
# Op (64 bytes): u32 nr (~0 ends), u32 flags (bit i<6: argument i is an offset into the block whose qword is the
# value; bit 8: a failure is ignored), i32 an errno taken as success, u32 where in the block to store the result
# (0: nowhere), 6 qword arguments.
# Regenerate the bytes in ../direct-code.ts with `bun scripts/assemble-pid1.ts` (test/sandbox/direct.test.ts checks them).
        .intel_syntax noprefix
        .text
        .globl spawn
spawn:
        push rbx
        push r12
        push r13
        push r14
        push r15
        push rbp
        sub rsp, 8
        mov rbx, rdi
        mov edi, 2                      # rt_sigprocmask(SIG_SETMASK, ~0, &old, 8): no handler of SCV's may run
        lea rsi, [rbx+96]               # on the intermediate's or PID 1's stack
        lea rdx, [rbx+88]
        mov r10d, 8
        mov eax, 14
        syscall
        mov edi, 0x4500                 # clone(CLONE_VM|CLONE_VFORK|CLONE_FILES, intermediate stack), no exit signal
        mov rsi, [rbx+32]
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 56
        syscall
        test rax, rax
        jz intermediate
        mov r14, rax
        js 2f
1:
        mov rdi, r14                    # wait4(intermediate, 0, __WALL, 0)
        xor esi, esi
        mov edx, 0x40000000
        xor r10d, r10d
        mov eax, 61
        syscall
        cmp rax, -4
        je 1b
        mov r14, [rbx+56]
2:
        mov edi, 2                      # rt_sigprocmask(SIG_SETMASK, &old, 0, 8)
        lea rsi, [rbx+88]
        xor edx, edx
        mov r10d, 8
        mov eax, 14
        syscall
        mov rax, r14
        add rsp, 8
        pop rbp
        pop r15
        pop r14
        pop r13
        pop r12
        pop rbx
        ret

intermediate:
        mov r12, [rbx+0]
        call run
        mov r15d, 1
        test rax, rax
        js failed
        mov rdi, [rbx+24]               # clone(PID 1's flags, PID 1's stack)
        mov rsi, [rbx+40]
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 56
        syscall
        test rax, rax
        jz pid1
        mov [rbx+56], rax               # PID 1's pid, or -errno
        xor edi, edi                    # exit(0)
        mov eax, 60
        syscall

pid1:
        mov r12, [rbx+8]
        call run
        mov r15d, 2
        test rax, rax
        js failed
        mov edi, 0x4111                 # clone(CLONE_VM|CLONE_VFORK|SIGCHLD, the command's stack)
        mov rsi, [rbx+48]
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 56
        syscall
        test rax, rax
        jz command
        mov r15d, 2
        mov r13d, -1
        js failed
        mov r14, rax
3:
        mov rdi, -1                     # wait4(-1, &status, __WALL, 0): orphans are ours to reap too
        lea rsi, [rbx+80]
        mov edx, 0x40000000
        xor r10d, r10d
        mov eax, 61
        syscall
        cmp rax, r14
        je 4f
        cmp rax, -10                    # ECHILD: cannot happen while the command lives; anything else, wait again
        jne 3b
4:
        cmp dword ptr [rbx+64], 0       # the command's program failed (it wrote why): nothing ran
        jne 9f
        mov eax, dword ptr [rbx+80]
        mov dword ptr [rbx+112], eax    # the command's wait status
        mov ecx, eax
        and ecx, 0x7f
        jnz 5f
        shr eax, 8
        and eax, 0xff
        jmp 6f
5:
        lea eax, [rcx+128]
6:
        mov r14d, eax
        xor r15d, r15d
        mov rdi, -1                     # kill(-1, SIGKILL): everything else in the namespace
        mov esi, 9
        mov eax, 62
        syscall
        test rax, rax
        jnz 8f
7:
        mov rdi, -1                     # reap and count until none is left
        lea rsi, [rbx+80]
        mov edx, 0x40000000
        xor r10d, r10d
        mov eax, 61
        syscall
        test rax, rax
        js 8f
        inc r15d
        jmp 7b
8:
        mov dword ptr [rbx+108], r15d
        mov dword ptr [rbx+104], 1
        mov edi, r14d                   # exit_group(the command's status)
        mov eax, 231
        syscall
9:
        mov edi, 125
        mov eax, 231
        syscall

command:
        mov r12, [rbx+16]
        call run                        # ends in execve: back here only when something failed
        mov r15d, 3
        mov dword ptr [rbx+72], eax
        mov dword ptr [rbx+68], r13d
        mov dword ptr [rbx+64], r15d
        mov edi, 127
        mov eax, 60
        syscall

failed:                                 # r15d: the program, r13d: the op, eax: -errno
        mov dword ptr [rbx+72], eax
        mov dword ptr [rbx+68], r13d
        mov dword ptr [rbx+64], r15d
        mov edi, 125
        mov eax, 231
        syscall

# run: the program at r12, op after op. Returns rax = 0 when all ran, else rax = -errno and r13d = the failed op.
run:
        xor r13d, r13d
10:
        mov eax, dword ptr [r12]
        cmp eax, -1
        je 19f
        mov ecx, dword ptr [r12+4]
        mov rdi, [r12+16]
        test cl, 1
        jz 11f
        mov rdi, [rbx+rdi]
11:
        mov rsi, [r12+24]
        test cl, 2
        jz 12f
        mov rsi, [rbx+rsi]
12:
        mov rdx, [r12+32]
        test cl, 4
        jz 13f
        mov rdx, [rbx+rdx]
13:
        mov r10, [r12+40]
        test cl, 8
        jz 14f
        mov r10, [rbx+r10]
14:
        mov r8, [r12+48]
        test cl, 16
        jz 15f
        mov r8, [rbx+r8]
15:
        mov r9, [r12+56]
        test cl, 32
        jz 16f
        mov r9, [rbx+r9]
16:
        syscall
        test rax, rax
        jns 17f
        mov rdx, rax
        neg rdx
        movsxd rcx, dword ptr [r12+8]
        cmp rdx, rcx
        je 20f
        test dword ptr [r12+4], 0x100
        jnz 18f
        ret
20:
        xor eax, eax
17:
        mov ecx, dword ptr [r12+12]
        test ecx, ecx
        jz 18f
        mov [rbx+rcx], rax
18:
        add r12, 64
        inc r13d
        jmp 10b
19:
        xor eax, eax
        ret
