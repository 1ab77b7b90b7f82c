//! The integration tests of `lanes-test-support`: checks of the repository as a whole
//! (its layering and its documentation of it), which belong to no one crate.

mod house;
