// Command contactmap predicts protein contact maps, RNA secondary
// structures and recommendations with symmetry-structured convolutional
// neural networks, and trains, evaluates and compares their models.
// "contactmap -h" lists the commands; "contactmap COMMAND -h" says what
// one does, its inputs, an example and its flags.
package main
