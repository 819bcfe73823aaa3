//! The ECP5 parts the flow knows, the PLL setting that makes the generator clock from the
//! board's oscillator, and the UART divider at that clock.

use anyhow::{Result, bail};
use serde::Serialize;

/// An ECP5 part: nextpnr's device option and the resources it has.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Device {
    pub nextpnr: &'static str,
    pub luts: u32,
    pub brams: u32,
    pub dsps: u32,
}

pub fn device(part: &str) -> Result<Device> {
    let d = |nextpnr, luts, brams, dsps| Device {
        nextpnr,
        luts,
        brams,
        dsps,
    };
    Ok(match part {
        "LFE5U-12F" => d("--12k", 12_096, 32, 28),
        "LFE5U-25F" => d("--25k", 24_288, 56, 28),
        "LFE5U-45F" => d("--45k", 43_848, 108, 72),
        "LFE5U-85F" => d("--85k", 83_640, 208, 156),
        "LFE5UM-25F" => d("--um-25k", 24_288, 56, 28),
        "LFE5UM-45F" => d("--um-45k", 43_848, 108, 72),
        "LFE5UM-85F" => d("--um-85k", 83_640, 208, 156),
        "LFE5UM5G-25F" => d("--um5g-25k", 24_288, 56, 28),
        "LFE5UM5G-45F" => d("--um5g-45k", 43_848, 108, 72),
        "LFE5UM5G-85F" => d("--um5g-85k", 83_640, 208, 156),
        other => bail!(
            "swim.toml device `{other}` is not an ECP5 part this task knows \
             (LFE5U-12F/25F/45F/85F, LFE5UM-*, LFE5UM5G-*)"
        ),
    })
}

// ---------------------------------------------------------------- clocks

/// Dividers of the ECP5 PLL (EHXPLLL, feedback from CLKOP).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Pll {
    pub clki_div: u32,
    pub clkfb_div: u32,
    pub clkop_div: u32,
    pub clkop_cphase: u32,
    pub out_mhz: f64,
    pub vco_mhz: f64,
}

/// The PLL setting closest to `target_mhz` from `in_mhz`: f_out = f_in * CLKFB_DIV /
/// CLKI_DIV, VCO = f_out * CLKOP_DIV within 400..800 MHz, PFD = f_in / CLKI_DIV within
/// 3.125..400 MHz (the ECP5 limits ecppll uses). Ties go to the VCO nearest 600 MHz.
pub fn pll_params(in_mhz: f64, target_mhz: f64) -> Result<Pll> {
    let mut best: Option<(f64, f64, Pll)> = None;
    for clki_div in 1..=128u32 {
        let pfd = in_mhz / f64::from(clki_div);
        if !(3.125..=400.0).contains(&pfd) {
            continue;
        }
        for clkfb_div in 1..=80u32 {
            let out_mhz = pfd * f64::from(clkfb_div);
            for clkop_div in 1..=128u32 {
                let vco_mhz = out_mhz * f64::from(clkop_div);
                if !(400.0..=800.0).contains(&vco_mhz) {
                    continue;
                }
                let error = (out_mhz - target_mhz).abs();
                let centre = (vco_mhz - 600.0).abs();
                let better = best.as_ref().is_none_or(|(e, c, _)| {
                    error < e - 1e-9 || ((error - e).abs() <= 1e-9 && centre < *c)
                });
                if better {
                    best = Some((
                        error,
                        centre,
                        Pll {
                            clki_div,
                            clkfb_div,
                            clkop_div,
                            clkop_cphase: (clkop_div - 1) / 2,
                            out_mhz,
                            vco_mhz,
                        },
                    ));
                }
            }
        }
    }
    let Some((error, _, pll)) = best else {
        bail!("no ECP5 PLL setting makes {target_mhz} MHz from {in_mhz} MHz");
    };
    if error > target_mhz * 0.01 {
        bail!(
            "the nearest ECP5 PLL output to {target_mhz} MHz from {in_mhz} MHz is {:.3} MHz \
             (more than 1 % off): choose another clock_mhz in swim.toml",
            pll.out_mhz
        );
    }
    Ok(pll)
}

/// The host link's settings at the generator clock.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LinkSettings {
    pub clocks_per_bit: u16,
    pub timeout_bits: u16,
    pub baud: u32,
    /// The baud rate the divider gives.
    pub actual_baud: f64,
}

pub fn link_settings(clock_mhz: f64, baud: u32, timeout_bits: u16) -> Result<LinkSettings> {
    let exact = clock_mhz * 1e6 / f64::from(baud);
    let clocks = exact.round();
    if !(4.0..=65_535.0).contains(&clocks) {
        bail!(
            "{baud} baud at {clock_mhz:.3} MHz is {exact:.1} clocks per bit; the UART needs \
             4..=65535: choose another baud in swim.toml"
        );
    }
    let actual_baud = clock_mhz * 1e6 / clocks;
    if (actual_baud - f64::from(baud)).abs() / f64::from(baud) > 0.02 {
        bail!(
            "{baud} baud at {clock_mhz:.3} MHz comes out as {actual_baud:.0} baud (over 2 % \
             off): choose another baud in swim.toml"
        );
    }
    if timeout_bits < 20 {
        bail!("swim.toml timeout_bits = {timeout_bits}: give a frame at least 20 bit times");
    }
    Ok(LinkSettings {
        clocks_per_bit: clocks as u16,
        timeout_bits,
        baud,
        actual_baud,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pll_makes_100_mhz_from_25() {
        let p = pll_params(25.0, 100.0).unwrap();
        assert!((p.out_mhz - 100.0).abs() < 1e-9, "{p:?}");
        assert!((400.0..=800.0).contains(&p.vco_mhz));
        assert_eq!(
            (p.clki_div, p.clkfb_div, p.clkop_div, p.clkop_cphase),
            (1, 4, 6, 2)
        );
        assert!(pll_params(25.0, 1000.0).is_err());
    }

    #[test]
    fn baud_divider() {
        let l = link_settings(100.0, 115_200, 2000).unwrap();
        assert_eq!(l.clocks_per_bit, 868);
        assert!(link_settings(100.0, 50_000_000, 2000).is_err());
        assert!(link_settings(100.0, 1, 2000).is_err());
    }

    #[test]
    fn devices() {
        assert_eq!(device("LFE5U-85F").unwrap().nextpnr, "--85k");
        assert_eq!(device("LFE5UM5G-25F").unwrap().luts, 24_288);
        let e = device("XC7A35T").unwrap_err().to_string();
        assert!(e.contains("`XC7A35T` is not an ECP5 part"), "{e}");
    }
}
