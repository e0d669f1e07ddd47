//! What every sampled-format fuzz target does after its reader: DevTools' timing and the function
//! table of every thread. Errors are fine; panics and hangs are not.

pub fn check(
    read: fn(&[u8]) -> Result<jsprof_profile::Profile, jsprof_profile::ReadError>,
    data: &[u8],
) {
    if let Ok(mut profile) = read(data) {
        jsprof_analysis::apply_devtools_timing(&mut profile);
        for thread in &profile.threads {
            let _ = jsprof_analysis::function_table(&profile, thread);
        }
    }
}
