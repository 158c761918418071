//! An allocator that puts a running network's state on 2 MB pages.
//!
//! With a thousand hosts or ten thousand flows, what a packet's hop reads (the packet store,
//! the links, the event wheel's pool, the flows' endpoints) spans tens of megabytes, read in
//! no order: with 4 KB pages nearly every line read is also a miss of the address
//! translation cache. Linux backs memory with 2 MB pages where the program asks for it
//! (`madvise(MADV_HUGEPAGE)`; the usual setting of `transparent_hugepage` is `madvise`), and
//! nothing else asks for it on our behalf. [`HugePageAlloc`] is glibc's allocator plus that
//! request, made while an engine builds and runs ([`Advising`]): for every block of at least
//! [`HUGE_PAGE`] bytes (started on a huge page, advised before it is first touched) and for
//! the main heap's growth, which holds the thousands of small blocks of per-flow and
//! per-link state.
//!
//! Measured on B5 (a k = 16 fat tree) 10–11 % less run time; B4 at 10,000 flows 0–3 % (see
//! `docs/engine-performance.md`). Where huge pages are off, nothing changes.
//!
//! Register it where a program is assembled (the Python extension and the engine benchmark
//! do): `#[global_allocator] static A: HugePageAlloc = HugePageAlloc;`.

#[cfg(not(unix))]
use std::alloc::System;
use std::alloc::{GlobalAlloc, Layout};

/// Size of a huge page on x86-64 and arm64 Linux; allocations this large or larger are
/// offered huge pages.
pub const HUGE_PAGE: usize = 2 << 20;

/// glibc's allocator, with a running network's memory offered 2 MB pages (Linux; elsewhere
/// the C library's allocator, or the system's where there is no C library).
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePageAlloc;

/// Runs between building and collecting (see [`Advising`]).
static ADVISING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// While one of these lives (the engine holds one from building a network to the end of its
/// run), large blocks and the heap's growth are offered huge pages. Outside, allocation is
/// glibc's own: a large block that grows is remapped in place rather than copied into a new
/// aligned one at every step, which made the parse of a scenario with 100,000 flows 2–4×
/// slower.
#[derive(Debug)]
pub struct Advising(());

impl Advising {
    /// Offer huge pages until the value is dropped.
    pub fn start() -> Advising {
        ADVISING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Advising(())
    }
}

impl Drop for Advising {
    fn drop(&mut self) {
        ADVISING.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Ask the kernel to back the whole 2 MB pages inside `[ptr, ptr + size)` with huge pages,
/// while an engine runs ([`Advising`]). Pages already touched keep their size; the ones
/// touched from now on get huge pages.
#[inline]
fn advise(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if advising() {
        let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
        let end = (ptr as usize + size) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: the range lies inside an allocation the caller owns, and this advice
            // changes only how the kernel backs it, never its contents. A failure (huge
            // pages disabled, an old kernel) leaves ordinary pages, which is fine.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, size);
}

/// The end of the main heap's advised part (0: nothing advised yet).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
static HEAP_ADVISED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How far the main heap grows at a time (glibc's `M_TOP_PAD`): several huge pages, so
/// that most of each extension is still untouched when it is advised.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HEAP_STEP: usize = 8 * HUGE_PAGE;

/// Small blocks come from glibc's main heap, which grows at its top: advise what it grew by
/// since the last look, once it is at least a huge page. (The engine's per-flow and per-link
/// state is thousands of small blocks.) The first look sets the step the heap grows by, and
/// glibc's thresholds with it: that is the process's first small allocation through this
/// allocator (in Python, the extension's import, not its first run), and the settings hold
/// for the life of the process.
#[inline]
fn advise_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::sync::atomic::Ordering::Relaxed;
        // SAFETY: `sbrk(0)` only reads where the heap ends.
        let top = unsafe { libc::sbrk(0) } as usize;
        let done = HEAP_ADVISED.load(Relaxed);
        if (done != 0 && top < done.saturating_add(HUGE_PAGE))
            || HEAP_ADVISED
                .compare_exchange(done, top, Relaxed, Relaxed)
                .is_err()
        {
            return;
        }
        if done == 0 {
            // The first look: from now on the heap grows by whole steps. (What it holds
            // already is touched and stays on ordinary pages.) Setting one of these turns
            // off glibc's own adjustment of the other two, so all three are set, to where
            // that adjustment takes them for a program that allocates large blocks: blocks
            // up to 32 MB from the heap (not a fresh mapping, faulted in again, for each),
            // and a heap that gives memory back only beyond 64 MB of free space at its top.
            // SAFETY: settings of glibc's allocator, valid at any time.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
                libc::mallopt(libc::M_TOP_PAD, HEAP_STEP as libc::c_int);
            }
        } else {
            advise(done as *mut u8, top - done);
        }
    }
}

/// Hand the memory a finished network freed back to the system. Blocks up to 32 MB come
/// from glibc's heap while an engine runs (see above), and the heap keeps what is freed in
/// its middle: after a run of 100,000 flows that was about 400 MB, still counted in the
/// process's memory while the results were serialised beside it. Nothing where the C
/// library is not glibc.
pub fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: returns free pages of glibc's heap to the kernel; valid at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// True while large blocks get huge pages (an engine is running: [`Advising`]).
#[inline]
fn advising() -> bool {
    ADVISING.load(std::sync::atomic::Ordering::Relaxed) > 0
}

/// Alignment `malloc` guarantees on 64-bit glibc.
const MALLOC_ALIGN: usize = 16;

/// A block from glibc's allocator, every one freed by `free` (so a block's alignment may
/// differ from the one asked for: a large block allocated while an engine runs starts on a
/// huge page, so that all of its whole 2 MB stretches can be huge pages).
#[cfg(unix)]
unsafe fn raw_alloc(size: usize, align: usize) -> *mut u8 {
    let align = if size >= HUGE_PAGE && advising() {
        align.max(HUGE_PAGE)
    } else {
        align
    };
    if align <= MALLOC_ALIGN && align <= size {
        // SAFETY: a plain allocation of a non-zero size (the caller's contract).
        return unsafe { libc::malloc(size) } as *mut u8;
    }
    let mut p = std::ptr::null_mut();
    // SAFETY: `align` is a power of two and a multiple of the pointer size.
    let r = unsafe { libc::posix_memalign(&mut p, align.max(size_of::<usize>()), size) };
    if r == 0 {
        p as *mut u8
    } else {
        std::ptr::null_mut()
    }
}

#[cfg(unix)]
// SAFETY: every block comes from `malloc` or `posix_memalign` with at least the size and
// alignment asked for and goes back to `free`; `realloc` is used only where it keeps the
// alignment asked for. `advise` only adds advice about how the memory is backed.
unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract.
        let p = unsafe { raw_alloc(layout.size(), layout.align()) };
        if layout.size() >= HUGE_PAGE {
            if !p.is_null() {
                advise(p, layout.size());
            }
        } else {
            advise_heap();
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if (layout.size() < HUGE_PAGE || !advising()) && layout.align() <= MALLOC_ALIGN {
            // (A large block outside a run stays calloc's: zero pages, faulted in lazily.)
            // SAFETY: a non-zero size (the caller's contract).
            let p = unsafe { libc::calloc(layout.size(), 1) } as *mut u8;
            advise_heap();
            return p;
        }
        // Advised before it is touched: zeroed here, so on huge pages from the start.
        // SAFETY: as `alloc`; the block is `layout.size()` bytes long.
        unsafe {
            let p = self.alloc(layout);
            if !p.is_null() {
                std::ptr::write_bytes(p, 0, layout.size());
            }
            p
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: allocated by `malloc`, `calloc`, `realloc` or `posix_memalign`.
        unsafe { libc::free(ptr as *mut libc::c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let huge = new_size >= HUGE_PAGE && advising();
        if !huge && layout.align() <= MALLOC_ALIGN && layout.align() <= new_size {
            // In place where glibc can (a large block is remapped, not copied).
            // SAFETY: a block of glibc's, a non-zero size (the caller's contract).
            let p = unsafe { libc::realloc(ptr as *mut libc::c_void, new_size) } as *mut u8;
            advise_heap();
            return p;
        }
        // Into a new block: one on huge pages, advised before the copy touches it (a
        // growing vector would otherwise keep the ordinary pages it was first written to),
        // or one with an alignment `realloc` does not keep.
        // SAFETY: `new_size` with the old alignment is a valid layout (the caller's
        // contract); both blocks are valid for the bytes copied.
        unsafe {
            let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
            let p = self.alloc(new_layout);
            if !p.is_null() {
                std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            p
        }
    }
}

#[cfg(not(unix))]
// SAFETY: every call is passed on to `System` unchanged.
unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocator hands out working memory of every size, keeps contents through a
    /// growth past the threshold, and frees it.
    #[test]
    fn allocations_small_and_large_work() {
        let a = HugePageAlloc;
        for size in [2, 64, 4096, HUGE_PAGE - 1, HUGE_PAGE, 3 * HUGE_PAGE + 17] {
            let layout = Layout::from_size_align(size, 64).unwrap();
            // SAFETY: a non-zero size; the block is written within its size and freed with
            // its layout.
            unsafe {
                let p = a.alloc(layout);
                assert!(!p.is_null());
                p.write(1);
                p.add(size - 1).write(2);
                let q = a.realloc(p, layout, size * 2 + HUGE_PAGE);
                assert!(!q.is_null());
                assert_eq!((q.read(), q.add(size - 1).read()), (1, 2));
                a.dealloc(
                    q,
                    Layout::from_size_align(size * 2 + HUGE_PAGE, 64).unwrap(),
                );
                let z = a.alloc_zeroed(layout);
                assert!((0..size).step_by(4093).all(|k| z.add(k).read() == 0));
                a.dealloc(z, layout);
            }
        }
    }

    /// Where the kernel offers huge pages on request, a large allocation while an engine runs
    /// asks for them: its mapping is marked for huge pages (`hg` in /proc/self/smaps).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_large_allocation_asks_for_huge_pages() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if !mode.contains("[madvise]") && !mode.contains("[always]") {
            return; // huge pages off on this machine: nothing to ask for
        }
        let a = HugePageAlloc;
        let size = 8 * HUGE_PAGE;
        let layout = Layout::from_size_align(size, 64).unwrap();
        let advising = Advising::start();
        // SAFETY: non-zero size, freed with its layout.
        let p = unsafe { a.alloc(layout) };
        drop(advising);
        let at = p as usize + HUGE_PAGE + 1;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut flags = String::new();
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = (lo..hi).contains(&at);
                        continue;
                    }
                }
            }
            if inside && line.starts_with("VmFlags:") {
                flags = line.to_string();
            }
        }
        // SAFETY: allocated above with this layout.
        unsafe { a.dealloc(p, layout) };
        assert!(flags.contains(" hg"), "mapping flags: {flags:?}");
    }
}
