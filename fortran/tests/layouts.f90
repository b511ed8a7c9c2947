!! Deserializes a timer tree and writes its layout:
!!   layouts INPUT global|instance INDENT [HANDLE]
!! INPUT (written by capi/tests/fortran.rs from a fixture's JSON): the
!! number of timers n; the 2n tree numbers; the n times as binary32 bit
!! patterns (exact); then one name per line. Before writing, it checks that
!! serialize returns the arrays it was given (exit 2 and a message if not).
program layouts
  use timer_tree_type
  implicit none
  type(timer_tree) :: own
  integer, allocatable :: tree(:), bits(:), tree2(:)
  character(256), allocatable :: names(:)
  character(:), allocatable :: names2(:)
  real, allocatable :: time(:), time2(:)
  character(256) :: arg, which
  integer :: n, k, u, indent, handle
  logical :: on_instance

  call get_command_argument(1, arg)
  open(newunit=u, file=trim(arg), status='old', action='read')
  read(u, *) n
  allocate(tree(2*n), bits(n), names(n))
  read(u, *) tree
  read(u, *) bits
  do k = 1, n
    read(u, '(a)') names(k)
  end do
  close(u)
  time = transfer(bits, 1.0, n)

  call get_command_argument(2, which)
  on_instance = which == 'instance'
  call get_command_argument(3, arg)
  read(arg, *) indent
  handle = 0
  if (command_argument_count() >= 4) then
    call get_command_argument(4, arg)
    read(arg, *) handle
  end if

  if (on_instance) then
    call own%deserialize(tree, names, time)
    call own%serialize(tree2, names2, time2)
  else
    call deserialize_timer_tree(tree, names, time)
    call serialize_timer_tree(tree2, names2, time2)
  end if
  if (any(tree2 /= tree)) call mismatch('tree')
  if (any(transfer(time2, 1, n) /= bits)) call mismatch('time')
  do k = 1, n
    if (names2(k) /= names(k)) call mismatch('name')
  end do

  if (handle > 0) then
    if (on_instance) then
      call own%write(6, indent, handle)
    else
      call write_timer_tree(6, indent, handle)
    end if
  else
    if (on_instance) then
      call own%write(6, indent)
    else
      call write_timer_tree(6, indent)
    end if
  end if

contains

  subroutine mismatch(what)
    character(*), intent(in) :: what
    write(0, '(a)') 'serialize after deserialize changed the ' // what // ' array'
    stop 2
  end subroutine

end program
