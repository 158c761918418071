//! Work started on a second thread where one can be started, and done here where not: the
//! steps after a run (collecting, the summary's text, its files) split their work in two on
//! these two-core machines, and a system that refuses another thread only makes them
//! slower.

use std::sync::Mutex;
use std::thread::{Scope, ScopedJoinHandle};

/// Work handed to [`Started::start`]: the closure until someone runs it.
pub(crate) struct Job<F>(Mutex<Option<F>>);

impl<F> Job<F> {
    /// The work `f`, not started.
    pub(crate) fn new(f: F) -> Self {
        Job(Mutex::new(Some(f)))
    }

    /// The closure, taken out once (by the thread, or here if it never ran).
    fn take(&self) -> Option<F> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A [`Job`] on a thread of a scope, or waiting to be done here.
pub(crate) struct Started<'scope, 'job, T, F> {
    thread: Option<ScopedJoinHandle<'scope, Option<T>>>,
    job: &'job Job<F>,
}

impl<'scope, 'job: 'scope, T: Send + 'scope, F: FnOnce() -> T + Send + 'scope>
    Started<'scope, 'job, T, F>
{
    /// Start `job` on a new thread of `scope`; if none can be started, it is done by
    /// [`Started::finish`].
    pub(crate) fn start<'env>(scope: &'scope Scope<'scope, 'env>, job: &'job Job<F>) -> Self {
        let thread = std::thread::Builder::new()
            .spawn_scoped(scope, || job.take().map(|f| f()))
            .ok();
        Started { thread, job }
    }

    /// The job's result: its thread's (a panic there goes on here), or the job done now.
    pub(crate) fn finish(self) -> T {
        let done = self
            .thread
            .and_then(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        done.unwrap_or_else(|| {
            let f = self.job.take();
            f.expect("a job not run on its thread is still here")()
        })
    }
}

/// `there` and `here` at once: `there` on a second thread (or here, after `here`, where
/// no thread can be started). Returns both results.
pub(crate) fn both<A: Send, B>(
    there: impl FnOnce() -> A + Send,
    here: impl FnOnce() -> B,
) -> (A, B) {
    let job = Job::new(there);
    std::thread::scope(|scope| {
        let started = Started::start(scope, &job);
        let b = here();
        (started.finish(), b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_results_come_back_in_their_places() {
        let data: Vec<u64> = (0..1000).collect();
        let (a, b) = both(
            || data[..500].iter().sum::<u64>(),
            || data[500..].iter().sum(),
        );
        assert_eq!((a, b), (124_750, 374_750));
    }

    /// A job whose thread never started is done by `finish`, here.
    #[test]
    fn a_job_without_its_thread_is_done_here() {
        let job = Job::new(|| 7);
        let here = std::thread::current().id();
        let ran_on = Job::new(|| std::thread::current().id());
        std::thread::scope(|_| {
            let s = Started::<i32, _> {
                thread: None,
                job: &job,
            };
            assert_eq!(s.finish(), 7);
            let t = Started::<_, _> {
                thread: None,
                job: &ran_on,
            };
            assert_eq!(t.finish(), here);
        });
    }

    #[test]
    #[should_panic(expected = "boom")]
    fn a_panic_on_the_thread_goes_on_here() {
        both(|| panic!("boom"), || 1);
    }
}
