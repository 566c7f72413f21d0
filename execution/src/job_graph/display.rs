//! The job graph as text, for EXPLAIN.

use std::fmt;

use datafusion::physical_plan::displayable;

use super::{JobGraph, OutputDistribution, Placement};

impl fmt::Display for OutputDistribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputDistribution::Hash { keys, channels } => {
                let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                write!(f, "Hash([{}], {channels})", keys.join(", "))
            }
            OutputDistribution::RoundRobin { channels } => write!(f, "RoundRobin({channels})"),
        }
    }
}

impl fmt::Display for JobGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.output_stage();
        for (i, stage) in self.stages().iter().enumerate() {
            let output = if i == last {
                " (job output)".to_string()
            } else {
                String::new()
            };
            let place = match stage.placement {
                Placement::Worker => "",
                Placement::Driver => " on the driver",
            };
            writeln!(
                f,
                "Stage {i}: {} partitions{place} -> {}{output}",
                stage.partitions(),
                stage.distribution
            )?;
            for (n, input) in stage.inputs.iter().enumerate() {
                writeln!(
                    f,
                    "  input {n}: {:?} from stage {}",
                    input.mode, input.stage
                )?;
            }
            for line in displayable(stage.plan.as_ref())
                .indent(true)
                .to_string()
                .lines()
            {
                writeln!(f, "    {line}")?;
            }
        }
        Ok(())
    }
}
