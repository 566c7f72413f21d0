//! Job topology: which tasks are scheduled together (regions) and what each region waits for.
//!
//! Stages linked by pipelined inputs (Forward, and round-robin shuffles: see
//! [`JobGraph::pipelined`]) form a component, whose tasks run together: a consumer reads its
//! input's streams while they are written. A component is sliced into one region per
//! partition (partition `p` of each of its stages) when all its stages have the same number
//! of partitions and every input between them is Forward; otherwise the whole component is one region (its tasks queued in stage order, so
//! producers get slots before their consumers). A stage with no pipelined links is a
//! component of its own, so it is sliced per partition too. A region waits for every
//! partition of each stage outside its component that it reads (by Shuffle, Merge, Broadcast
//! or Rescale), all of which must have succeeded before any of its tasks is queued.

use std::collections::BTreeSet;

use crate::job_graph::{InputMode, JobGraph};

/// A task position in the job: stage and partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskPosition {
    pub stage: usize,
    pub partition: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub tasks: Vec<TaskPosition>,
    /// Tasks outside the region that must finish before it starts.
    pub depends_on: BTreeSet<TaskPosition>,
}

#[derive(Debug, Clone)]
pub struct JobTopology {
    pub regions: Vec<Region>,
}

impl JobTopology {
    pub fn new(graph: &JobGraph) -> Self {
        let stages = graph.stages();
        let n = stages.len();
        // Union stages connected by Forward edges.
        let mut component: Vec<usize> = (0..n).collect();
        fn find(c: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while c[r] != r {
                r = c[r];
            }
            c[x] = r;
            r
        }
        for (s, stage) in stages.iter().enumerate() {
            for input in &stage.inputs {
                if graph.pipelined(input) {
                    let (a, b) = (find(&mut component, s), find(&mut component, input.stage));
                    component[a] = b;
                }
            }
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut roots: Vec<usize> = Vec::new();
        for s in 0..n {
            let r = find(&mut component, s);
            match roots.iter().position(|x| *x == r) {
                Some(i) => groups[i].push(s),
                None => {
                    roots.push(r);
                    groups.push(vec![s]);
                }
            }
        }
        let mut regions = Vec::new();
        for group in groups {
            let forward_only = group.iter().all(|s| {
                stages[*s]
                    .inputs
                    .iter()
                    .all(|i| !group.contains(&i.stage) || i.mode == InputMode::Forward)
            });
            let partitions = stages[group[0]].partitions();
            let sliceable =
                forward_only && group.iter().all(|s| stages[*s].partitions() == partitions);
            let slices: Vec<Vec<TaskPosition>> = if sliceable {
                (0..partitions)
                    .map(|p| {
                        group
                            .iter()
                            .map(|s| TaskPosition {
                                stage: *s,
                                partition: p,
                            })
                            .collect()
                    })
                    .collect()
            } else {
                vec![
                    group
                        .iter()
                        .flat_map(|s| {
                            (0..stages[*s].partitions()).map(move |p| TaskPosition {
                                stage: *s,
                                partition: p,
                            })
                        })
                        .collect(),
                ]
            };
            for tasks in slices {
                let mut depends_on = BTreeSet::new();
                for t in &tasks {
                    for input in &stages[t.stage].inputs {
                        if group.contains(&input.stage) {
                            continue;
                        }
                        if input.mode == InputMode::Forward {
                            depends_on.insert(TaskPosition {
                                stage: input.stage,
                                partition: t.partition,
                            });
                        } else {
                            for p in 0..stages[input.stage].partitions() {
                                depends_on.insert(TaskPosition {
                                    stage: input.stage,
                                    partition: p,
                                });
                            }
                        }
                    }
                }
                regions.push(Region { tasks, depends_on });
            }
        }
        Self { regions }
    }
}
