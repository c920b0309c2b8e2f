//! The threads of the crate: one rayon pool, sized by `geoiou.set_threads`, and the one driver
//! convention every loop over pairs or regions follows.
//!
//! A loop is cut into chunks of at least a minimum number of items, chosen per kernel so that a
//! chunk is worth tens of microseconds of work (waking the pool's sleeping threads costs about
//! that). A loop of at most one chunk, or any loop when one thread is asked for, runs inline on
//! the calling thread: no thread is started or woken. Each item writes only its own outputs, so
//! the result has the same bits for any number of threads and any chunking.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use rayon::prelude::*;

/// The limit set by `set_threads` (0: every core the process may use).
static LIMIT: AtomicUsize = AtomicUsize::new(0);
/// The pool of the current limit, made when a loop first needs it, again when the limit changes, and
/// again in a child process made by `fork` (which has none of its parent's threads): kept with the
/// process id and the size it was made for.
static POOL: Mutex<Option<Kept>> = Mutex::new(None);

struct Kept {
    process: u32,
    size: usize,
    pool: Arc<rayon::ThreadPool>,
}

/// Whether every loop is cut into chunks of one item and run on the pool, whatever its size: a
/// switch for the tests, which hold that the bits do not depend on the chunking.
static SPLIT_EVERY_LOOP: AtomicBool = AtomicBool::new(false);

/// The cores this process may use (its affinity and cgroup quota included), read once per process:
/// the standard library reads the cgroup's files on every call (about 25 µs, more than a single
/// pair's whole call).
pub fn available() -> usize {
    static AVAILABLE: OnceLock<usize> = OnceLock::new();
    *AVAILABLE.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The threads a loop uses: the limit, or every available core.
pub fn count() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        0 => available(),
        n => n,
    }
}

/// The pool of `count()` threads, made on first use and kept until the limit changes.
fn pool() -> Arc<rayon::ThreadPool> {
    let (wanted, process) = (count(), std::process::id());
    let mut kept = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match kept.take() {
        Some(old) if old.process == process && old.size == wanted => {
            let pool = Arc::clone(&old.pool);
            *kept = Some(old);
            return pool;
        }
        // A forked child's copy of its parent's pool has no threads behind it: dropping it would signal
        // threads that do not exist, so it is left as it is (a few bytes, once per fork).
        Some(old) if old.process != process => std::mem::forget(old),
        _ => {}
    }
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(wanted)
            .thread_name(|k| format!("geoiou-{k}"))
            .build()
            .expect("the operating system refused to start the kernel threads"),
    );
    *kept = Some(Kept { process, size: wanted, pool: Arc::clone(&pool) });
    pool
}

/// Cut `out` into consecutive chunks of whole units of `unit` items (a row of a matrix, say), at least
/// `min_units` units a chunk (the last may be shorter), and call `work(first, chunk_of_out)` for each,
/// `first` being the index of the chunk's first item; on the pool when there is more than one chunk
/// and more than one thread, else inline.
pub fn for_chunks<T, F>(out: &mut [T], unit: usize, min_units: usize, work: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    let unit = unit.max(1);
    let chunk = unit * units_per_chunk(out.len().div_ceil(unit), min_units);
    if out.len() <= chunk || count() == 1 {
        work(0, out);
        return;
    }
    pool().install(|| {
        out.par_chunks_mut(chunk).enumerate().for_each(|(k, part)| work(k * chunk, part));
    });
}

/// `for_chunks` over two outputs cut alike: unit k is items `k·unit_a..` of `a` and `k·unit_b..` of `b`
/// (a box's four corners and two sides, say); `work(first_unit, chunk_of_a, chunk_of_b)`.
pub fn for_chunks_of_two<A, B, F>(a: &mut [A], unit_a: usize, b: &mut [B], unit_b: usize, min_units: usize, work: F)
where
    A: Send,
    B: Send,
    F: Fn(usize, &mut [A], &mut [B]) + Sync,
{
    let (unit_a, unit_b) = (unit_a.max(1), unit_b.max(1));
    let units = units_per_chunk(a.len().div_ceil(unit_a), min_units);
    if a.len() <= units * unit_a || count() == 1 {
        work(0, a, b);
        return;
    }
    pool().install(|| {
        a.par_chunks_mut(units * unit_a)
            .zip(b.par_chunks_mut(units * unit_b))
            .enumerate()
            .for_each(|(k, (part_a, part_b))| work(k * units, part_a, part_b));
    });
}

/// `work(begin, end)` for consecutive ranges of `chunk` of the items `0..items`, collecting what each
/// returns in order; on the pool when there is more than one range and more than one thread.
pub fn map_ranges<R, F>(items: usize, chunk: usize, work: F) -> Vec<R>
where
    R: Send,
    F: Fn(usize, usize) -> R + Sync,
{
    let chunk = units_per_chunk(items, chunk);
    let ranges = items.div_ceil(chunk);
    if ranges <= 1 || count() == 1 {
        return (0..ranges).map(|k| work(k * chunk, items.min((k + 1) * chunk))).collect();
    }
    pool().install(|| (0..ranges).into_par_iter().map(|k| work(k * chunk, items.min((k + 1) * chunk))).collect())
}

fn split_every_loop() -> bool {
    SPLIT_EVERY_LOOP.load(Ordering::Relaxed)
}

/// The units of a chunk when a loop of `units` is cut into chunks of about `min_units`: a number of
/// chunks that is a multiple of the threads, so that no thread is left with one chunk more than the
/// others (three chunks on two threads would leave one idle for a third of the loop); each chunk
/// then holds at least `min_units · c / (c + threads)` units, `c` the chunks of `min_units`.
fn units_per_chunk(units: usize, min_units: usize) -> usize {
    if split_every_loop() {
        return 1;
    }
    let min_units = min_units.max(1);
    let threads = count();
    if units <= min_units || threads == 1 {
        return min_units;
    }
    let chunks = (units / min_units).div_ceil(threads) * threads;
    units.div_ceil(chunks)
}

/// Run `work` on the pool: the parallel iterators it starts use the pool's threads.
pub fn install<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    pool().install(work)
}

/// Items a chunk needs for about `CHUNK_NS` of work at `cost_ns` an item.
pub const fn chunk_of(cost_ns: usize) -> usize {
    let items = CHUNK_NS / cost_ns;
    if items == 0 { 1 } else { items }
}

/// Nanoseconds of one thread's work a chunk is cut to: several times what waking a sleeping thread costs.
pub const CHUNK_NS: usize = 100_000;

/// Limit the crate's loops to `n` threads (0: every core the process may use).
#[pyfunction]
fn set_threads(n: usize) {
    LIMIT.store(n, Ordering::Relaxed);
}

/// Cut every loop into chunks of one item on the pool, whatever its size (`on`), or size chunks by
/// their work again: for the tests of identical bits under any chunking.
#[pyfunction]
fn split_every_loop_for_tests(on: bool) {
    SPLIT_EVERY_LOOP.store(on, Ordering::Relaxed);
}

/// The cores this process may use.
#[pyfunction]
fn available_threads() -> usize {
    available()
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(set_threads, module)?)?;
    module.add_function(wrap_pyfunction!(available_threads, module)?)?;
    module.add_function(wrap_pyfunction!(split_every_loop_for_tests, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_item_once_in_order() {
        let mut out = vec![0usize; 1000];
        for_chunks(&mut out, 1, 64, |first, part| {
            for (k, cell) in part.iter_mut().enumerate() {
                *cell = first + k;
            }
        });
        assert!(out.iter().enumerate().all(|(k, &v)| k == v));
    }

    #[test]
    fn chunks_hold_whole_units() {
        let mut out = vec![0usize; 12];
        for_chunks(&mut out, 3, 1, |first, part| {
            assert!(first % 3 == 0 && part.len() % 3 == 0);
            part.fill(first);
        });
        assert_eq!(out[11], 9);
    }

    #[test]
    fn ranges_come_back_in_order() {
        let sums = map_ranges(10, 3, |begin, end| (begin..end).sum::<usize>());
        assert_eq!(sums, vec![3, 12, 21, 9]);
        assert!(map_ranges(0, 3, |begin, end| end - begin).is_empty());
    }

    #[test]
    fn chunks_come_in_multiples_of_the_threads() {
        LIMIT.store(2, Ordering::Relaxed);
        // 3 chunks of 100 become 4 of 75, two per thread; 250 units make 2 chunks, not 3.
        assert_eq!(units_per_chunk(300, 100), 75);
        assert_eq!(units_per_chunk(250, 100), 125);
        assert_eq!(units_per_chunk(100, 100), 100);
        assert_eq!(units_per_chunk(1000, 100), 100);
        LIMIT.store(0, Ordering::Relaxed);
    }

    #[test]
    fn a_chunk_is_at_least_one_item() {
        assert_eq!(chunk_of(usize::MAX), 1);
        assert_eq!(chunk_of(100), CHUNK_NS / 100);
    }
}
