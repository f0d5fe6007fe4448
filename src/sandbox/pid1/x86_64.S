# The first process of a sandboxed command's PID namespace (see ../pid1.ts), as x86_64 machine code that the
# launcher maps into memory and calls: a Bun process cannot fork and go on running JavaScript in the child, and a
# helper program would be a second file to install. `spawn_pid1(block)` forks; the parent gets the child's pid
# (or -errno). The child, the namespace's PID 1, never returns: it blocks every signal, dies with the launcher,
# is not dumpable (the command cannot ptrace it or read its /proc files), mounts the namespace's own /proc
# (read-only) when asked, confines itself (Landlock, capabilities) and starts the command (vfork-like: that path touches no memory and no stack). When the command
# ends it kills whatever the command left in the namespace, counts it, writes a 12-byte note {kind, value,
# status} to the note descriptor and exits with the command's status (128 + the signal when a signal ended it).
# Only system calls, no libc; PID 1 writes nothing but its stack and the block.
#
# Regenerate the bytes in ../pid1-code.ts with `bun scripts/assemble-pid1.ts` (test/sandbox/pid1.test.ts checks them).
# Block (8-byte fields): 0 path, 8 argv, 16 envp, 24 note fd (-1: none), 32 Landlock ruleset fd (-1: none),
# 40 drop capabilities (0/1), 48 mount /proc (0/1), 56 "proc", 64 "/proc", 72 exec-failed message, 80 its length,
# 88 wait status, 96 the caller's signal mask, 104 all signals (~0), 112 capability header, 120..143 capability
# data (zero), 144 note {u32 kind, u32 value, u32 the command's wait status}, 160 the signals the command gets at their default (a bit each), 168 Landlock rule
# {u64 the rights to read /proc, i32 its descriptor} (packed), 184..215 a zero struct sigaction (SIG_DFL).
# Notes: kind 1 = the command ended, value = processes stopped after it; kind 2 = not run, value = the step that
# failed (1 Landlock, 2 capabilities, 3 fork).
        .intel_syntax noprefix
        .text
        .globl spawn_pid1
spawn_pid1:
        push rbx
        mov rbx, rdi
        mov edi, 17                     # clone(SIGCHLD): a fork. Not CLONE_VM: PID 1 is not dumpable, and that
        xor esi, esi                    # would make the launcher's memory (SCV takes the proxy's socket from it)
        xor edx, edx                    # undumpable too; and a PID 1 the command reached would hold the launcher
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 56
        syscall
        test rax, rax
        jz pid1
        pop rbx
        ret

pid1:
        mov edi, 2                      # rt_sigprocmask(SIG_SETMASK, all, old, 8)
        lea rsi, [rbx+104]
        lea rdx, [rbx+96]
        mov r10d, 8
        mov eax, 14
        syscall
        mov edi, 1                      # prctl(PR_SET_PDEATHSIG, SIGKILL)
        mov esi, 9
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 157
        syscall
        mov edi, 4                      # prctl(PR_SET_DUMPABLE, 0): the command may not ptrace PID 1 or read
        xor esi, esi                    # its /proc files (maps, fd, mem)
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 157
        syscall
        cmp qword ptr [rbx+48], 0
        je 1f
        mov rdi, [rbx+56]               # mount("proc", "/proc", "proc", RDONLY|NOSUID|NODEV|NOEXEC, 0)
        mov rsi, [rbx+64]
        mov rdx, rdi
        mov r10d, 15
        xor r8d, r8d
        mov eax, 165
        syscall                         # refused (a container's masked /proc): the host's /proc stays
        test rax, rax
        jnz 1f
        cmp qword ptr [rbx+32], 0       # Landlock's read rule for the new /proc (the rules on the /proc it
        jl 1f                           # covers no longer apply): openat(AT_FDCWD, "/proc", O_PATH|O_CLOEXEC)
        mov edi, -100
        mov rsi, [rbx+64]
        mov edx, 0x280000
        xor r10d, r10d
        mov eax, 257
        syscall
        test rax, rax
        js 1f
        mov r12, rax
        mov dword ptr [rbx+176], eax
        mov rdi, [rbx+32]               # landlock_add_rule(ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0)
        mov esi, 1
        lea rdx, [rbx+168]
        xor r10d, r10d
        mov eax, 445
        syscall
        mov rdi, r12
        mov eax, 3
        syscall
1:
        mov rdi, [rbx+32]
        test rdi, rdi
        js 2f
        xor esi, esi                    # landlock_restrict_self(fd, 0)
        mov eax, 446
        syscall
        mov r12d, 1
        test rax, rax
        jnz failed
        mov rdi, [rbx+32]               # close(ruleset): the command does not inherit it
        mov eax, 3
        syscall
2:
        cmp qword ptr [rbx+40], 0
        je 4f
        xor r13d, r13d
3:
        mov edi, 24                     # prctl(PR_CAPBSET_DROP, cap) until the kernel knows no more
        mov rsi, r13
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 157
        syscall
        test rax, rax
        jnz 5f
        inc r13
        cmp r13, 64
        jb 3b
5:
        mov edi, 47                     # prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
        mov esi, 4
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 157
        syscall
        lea rdi, [rbx+112]              # capset(header, zero data)
        lea rsi, [rbx+120]
        mov eax, 126
        syscall
        mov r12d, 2
        test rax, rax
        jnz failed
4:
        mov edi, 0x4111                 # clone(CLONE_VM|CLONE_VFORK|SIGCHLD): the command, which only execs
        xor esi, esi
        xor edx, edx
        xor r10d, r10d
        xor r8d, r8d
        mov eax, 56
        syscall
        mov r12d, 3
        test rax, rax
        js failed
        jz command
        mov r13, rax
6:
        mov rdi, -1                     # wait4(-1, &status, __WALL, 0): orphans are ours to reap too
        lea rsi, [rbx+88]
        mov edx, 0x40000000
        xor r10d, r10d
        mov eax, 61
        syscall
        cmp rax, r13
        je 7f
        cmp rax, -10                    # ECHILD: cannot happen while the command lives; anything else, wait again
        jne 6b
7:
        mov eax, dword ptr [rbx+88]
        mov dword ptr [rbx+152], eax    # the command's wait status, for the note
        mov ecx, eax
        and ecx, 0x7f
        jnz 8f
        shr eax, 8
        and eax, 0xff
        jmp 9f
8:
        lea eax, [rcx+128]
9:
        mov r14d, eax
        xor r15d, r15d
        mov rdi, -1                     # kill(-1, SIGKILL): everything else in the namespace
        mov esi, 9
        mov eax, 62
        syscall
        test rax, rax
        jnz 11f
10:
        mov rdi, -1                     # reap and count until none is left
        lea rsi, [rbx+88]
        mov edx, 0x40000000
        xor r10d, r10d
        mov eax, 61
        syscall
        test rax, rax
        js 11f
        inc r15d
        jmp 10b
11:
        mov dword ptr [rbx+144], 1
        mov dword ptr [rbx+148], r15d
        call note
        mov edi, r14d                   # exit_group(the command's status)
        mov eax, 231
        syscall

failed:
        mov dword ptr [rbx+144], 2
        mov dword ptr [rbx+148], r12d
        mov dword ptr [rbx+152], 0
        call note
        mov edi, 125
        mov eax, 231
        syscall

note:
        mov rdi, [rbx+24]               # write(note fd, note, 12)
        test rdi, rdi
        js 12f
        lea rsi, [rbx+144]
        mov edx, 12
        mov eax, 1
        syscall
12:
        ret

command:
        mov edi, 2                      # rt_sigprocmask(SIG_SETMASK, the caller's mask, 0, 8)
        lea rsi, [rbx+96]
        xor edx, edx
        mov r10d, 8
        mov eax, 14
        syscall
        mov r12, [rbx+160]              # the signals the launcher and Bun ignore back to their default action,
        mov r13d, 1                     # one bit each (an ignored signal stays ignored across execve):
14:
        bt r12, r13                     # rt_sigaction(sig, zero, 0, 8) for each bit set
        jnc 15f
        mov edi, r13d
        lea rsi, [rbx+184]
        xor edx, edx
        mov r10d, 8
        mov eax, 13
        syscall
15:
        inc r13d
        cmp r13d, 64
        jb 14b
        mov rdi, [rbx+24]               # close(note fd)
        test rdi, rdi
        js 13f
        mov eax, 3
        syscall
13:
        mov rdi, [rbx+0]                # execve(path, argv, envp)
        mov rsi, [rbx+8]
        mov rdx, [rbx+16]
        mov eax, 59
        syscall
        mov edi, 2                      # write(2, message, length), exit_group(127)
        mov rsi, [rbx+72]
        mov rdx, [rbx+80]
        mov eax, 1
        syscall
        mov edi, 127
        mov eax, 231
        syscall
