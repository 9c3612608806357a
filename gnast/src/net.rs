//! What the two networks share: their weights in one [`VarMap`], an
//! AdamW optimiser over them, and a copy of the last weights that trained
//! without a non-finite loss, to go back to when training diverges.

use candle_core::{DType, Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW, VarBuilder, VarMap};
use rand::Rng;

use crate::Result;

/// Weights, optimiser and the last good copy.
pub struct Net {
    pub vars: VarMap,
    opt: AdamW,
    lr: f64,
    good: Vec<(String, Tensor)>,
}

impl Net {
    /// A network whose layers `build` declares through the builder it is
    /// given, trained at learning rate `lr`. Its weights are drawn from
    /// `rng` (candle's CPU generator cannot be seeded), as PyTorch starts
    /// a linear layer: uniform in ±1/√(inputs), its bias too.
    pub fn new<T>(lr: f64, rng: &mut impl Rng, build: impl FnOnce(VarBuilder<'_>) -> Result<T>) -> Result<(Net, T)> {
        let vars = VarMap::new();
        let layers = build(VarBuilder::from_varmap(&vars, DType::F32, &Device::Cpu))?;
        init(&vars, rng)?;
        let opt = AdamW::new(vars.all_vars(), params(lr))?;
        let mut net = Net { vars, opt, lr, good: Vec::new() };
        net.keep()?;
        Ok((net, layers))
    }

    /// One step down `loss`'s gradient. Returns the loss, or `None` when
    /// it was not finite: then no step is taken.
    pub fn step(&mut self, loss: &Tensor) -> Result<Option<f32>> {
        let value = loss.to_scalar::<f32>()?;
        if !value.is_finite() {
            return Ok(None);
        }
        self.opt.backward_step(loss)?;
        Ok(Some(value))
    }

    /// A step's loss judged: itself when it and every weight are finite;
    /// else the weights go back to the last good ones ([`Net::restore`])
    /// and `None`.
    pub fn judge(&mut self, loss: Option<f32>) -> Result<Option<f32>> {
        match loss {
            Some(l) if self.finite()? => Ok(Some(l)),
            _ => {
                self.restore()?;
                Ok(None)
            }
        }
    }

    /// Whether every weight is finite.
    pub fn finite(&self) -> Result<bool> {
        for v in self.vars.all_vars() {
            let bad = v.as_tensor().flatten_all()?.to_vec1::<f32>()?.iter().any(|x| !x.is_finite());
            if bad {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Remembers the weights as good.
    pub fn keep(&mut self) -> Result<()> {
        let data = self.vars.data().lock().expect("not poisoned");
        self.good = data.iter().map(|(k, v)| Ok((k.clone(), v.as_tensor().copy()?))).collect::<Result<_>>()?;
        Ok(())
    }

    /// Goes back to the last good weights with a fresh optimiser at half
    /// the learning rate (its moments may hold what diverged).
    pub fn restore(&mut self) -> Result<()> {
        {
            let data = self.vars.data().lock().expect("not poisoned");
            for (k, t) in &self.good {
                if let Some(v) = data.get(k) {
                    v.set(t)?;
                }
            }
        }
        self.lr = (self.lr * 0.5).max(1e-6);
        self.opt = AdamW::new(self.vars.all_vars(), params(self.lr))?;
        Ok(())
    }

    /// Sets weight `name` to NaN everywhere (tests of recovery).
    pub fn poison(&mut self, name: &str) -> Result<()> {
        let data = self.vars.data().lock().expect("not poisoned");
        let v = data.get(name).expect("a weight of this network");
        let nan = (v.as_tensor().ones_like()? * f64::NAN)?;
        v.set(&nan)?;
        Ok(())
    }

    pub fn learning_rate(&self) -> f64 {
        self.lr
    }
}

fn init(vars: &VarMap, rng: &mut impl Rng) -> Result<()> {
    let data = vars.data().lock().expect("not poisoned");
    let mut names: Vec<&String> = data.keys().collect();
    names.sort();
    for name in names {
        let v = &data[name];
        let layer = name.rsplit_once('.').map_or(name.as_str(), |(l, _)| l);
        let inputs = data.get(&format!("{layer}.weight")).map_or(1, |w| *w.dims().last().unwrap_or(&1));
        let bound = 1.0 / (inputs.max(1) as f32).sqrt();
        let values: Vec<f32> = (0..v.elem_count()).map(|_| rng.random_range(-bound..bound)).collect();
        v.set(&Tensor::from_vec(values, v.shape(), &Device::Cpu)?)?;
    }
    Ok(())
}

fn params(lr: f64) -> ParamsAdamW {
    ParamsAdamW { lr, weight_decay: 0.0, ..Default::default() }
}

/// Rows of floats as one `(rows, width)` tensor.
pub fn matrix(rows: &[&[f32]], width: usize) -> Result<Tensor> {
    let mut flat = Vec::with_capacity(rows.len() * width);
    for r in rows {
        flat.extend_from_slice(&r[..width]);
    }
    Ok(Tensor::from_vec(flat, (rows.len(), width), &Device::Cpu)?)
}
