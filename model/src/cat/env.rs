//! The names in scope while a model compiles. cat is lexically scoped: a function's body sees
//! the names bound before the function (and its parameters), never a later binding, even one
//! that shadows a name it uses. Rather than copying the whole environment into each function
//! (quadratic in a model of many functions), every binding is kept with the moment it was made,
//! and a [`Scope`] sees those made before its moment.

use super::syntax;
use std::collections::HashMap;
use std::rc::Rc;

/// What a name stands for.
#[derive(Clone)]
pub enum Binding {
    /// A set or relation: its node.
    Value(usize),
    /// A function (`let f(x) = …`), inlined at each application.
    Function(Rc<Function>),
}

/// A function: its parameters, its body and where it was defined (the names its body sees).
pub struct Function {
    /// The parameters' names, in order.
    pub params: Vec<String>,
    /// The body, compiled anew at each application.
    pub body: syntax::Expr,
    /// The bindings made before this function.
    pub defined: Moment,
    /// The file it comes from (errors in its body name it).
    pub file: String,
}

/// A point in the sequence of bindings: a scope at moment `m` sees the bindings made before it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Moment(u32);

/// Every binding made so far, by name, in the order they were made.
#[derive(Default)]
pub struct Names {
    history: HashMap<String, Vec<(Moment, Binding)>>,
    made: u32,
}

impl Names {
    /// The moment after every binding made so far.
    pub fn now(&self) -> Moment {
        Moment(self.made)
    }

    /// Binds `name` from now on.
    pub fn bind(&mut self, name: &str, value: Binding) {
        let at = Moment(self.made);
        self.made += 1;
        self.history
            .entry(name.to_string())
            .or_default()
            .push((at, value));
    }

    /// What `name` stands for in a scope at moment `at`: its latest binding before it.
    fn lookup(&self, name: &str, at: Moment) -> Option<&Binding> {
        let bindings = self.history.get(name)?;
        let before = bindings.partition_point(|(m, _)| *m < at);
        before.checked_sub(1).map(|i| &bindings[i].1)
    }

    /// The latest value bound to each name (functions left out).
    pub fn values(&self) -> HashMap<String, usize> {
        self.history
            .iter()
            .filter_map(|(name, bindings)| match bindings.last() {
                Some((_, Binding::Value(i))) => Some((name.clone(), *i)),
                _ => None,
            })
            .collect()
    }
}

/// The names one expression sees: its function's parameters, then the bindings made before
/// its moment.
#[derive(Clone)]
pub struct Scope<'a> {
    /// Every binding of the model.
    pub names: &'a Names,
    /// How many of them the expression sees (those made before it).
    pub at: Moment,
    /// The parameters of the function being applied, each with its argument's node.
    pub params: Rc<Vec<(String, usize)>>,
}

impl<'a> Scope<'a> {
    /// The top-level scope now: every binding made so far.
    pub fn top(names: &'a Names) -> Scope<'a> {
        Scope {
            names,
            at: names.now(),
            params: Rc::default(),
        }
    }

    /// The scope of a function's body, with its parameters bound to `args`.
    pub fn of_function(names: &'a Names, f: &Function, args: &[usize]) -> Scope<'a> {
        Scope {
            names,
            at: f.defined,
            params: Rc::new(f.params.iter().cloned().zip(args.iter().copied()).collect()),
        }
    }

    /// What `name` stands for here.
    pub fn get(&self, name: &str) -> Option<Binding> {
        if let Some((_, v)) = self.params.iter().rev().find(|(p, _)| p == name) {
            return Some(Binding::Value(*v));
        }
        self.names.lookup(name, self.at).cloned()
    }
}
