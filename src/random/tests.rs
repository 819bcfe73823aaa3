//! The generator's own checks.

use super::*;
use crate::reference::Category;

/// The shortcut never claims a check the reference does not have.
#[test]
fn drop_check_shortcut_is_sound() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let mut claimed = 0;
    for i in 0..5000 {
        let pos = g.quiet_position(i % 10 == 0);
        if has_drop_check(&pos) {
            claimed += 1;
            let set = tsume_moves(&pos);
            assert!(
                set.moves.iter().any(|m| m.category == Category::Drop),
                "TSUME_SEED={seed}: {} has a drop check by the shortcut, none in the reference",
                pos.to_sfen()
            );
        }
    }
    assert!(
        claimed > 1000,
        "TSUME_SEED={seed}: the shortcut fired only {claimed} times"
    );
}
